"""Schema versions of the workspace store, oldest first. Append; never edit a released step.

`PRAGMA user_version` holds how many steps a workspace has applied.
"""

from __future__ import annotations

MIGRATIONS: list[list[str]] = [
    # 1: tool calls, artifacts, runs, benchmark cells
    [
        """CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY,
            tool TEXT NOT NULL,
            caller TEXT NOT NULL,
            arguments TEXT NOT NULL,
            ok INTEGER,
            result TEXT,
            error TEXT,
            started REAL NOT NULL,
            duration_s REAL
        )""",
        "CREATE INDEX tool_calls_by_tool ON tool_calls (tool)",
        """CREATE TABLE artifacts (
            id INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            size INTEGER NOT NULL,
            meta TEXT NOT NULL,
            tool_call_id INTEGER REFERENCES tool_calls (id),
            created REAL NOT NULL
        )""",
        "CREATE INDEX artifacts_by_sha ON artifacts (sha256)",
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            status TEXT NOT NULL,
            meta TEXT NOT NULL,
            started REAL NOT NULL,
            finished REAL
        )""",
        """CREATE TABLE bench_cells (
            id INTEGER PRIMARY KEY,
            run_id INTEGER REFERENCES runs (id),
            cell_key TEXT NOT NULL,
            suite TEXT NOT NULL,
            task TEXT NOT NULL,
            model TEXT NOT NULL,
            seed INTEGER NOT NULL,
            status TEXT NOT NULL,
            scores TEXT NOT NULL,
            record TEXT NOT NULL,
            created REAL NOT NULL
        )""",
    ],
    # 2: the engineering ledger (workbench.core.ledger). Every ledger table is append-only: the
    # triggers below turn any UPDATE or DELETE into an error, so the audit history cannot be
    # rewritten and a submission stays exactly what was submitted.
    [
        """CREATE TABLE ledger_candidates (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            subject TEXT NOT NULL,
            kind TEXT NOT NULL,
            content TEXT NOT NULL,
            label TEXT NOT NULL,
            created REAL NOT NULL
        )""",
        "CREATE INDEX ledger_candidates_by_subject ON ledger_candidates (subject)",
        """CREATE TABLE ledger_transitions (
            id INTEGER PRIMARY KEY,
            subject TEXT NOT NULL,
            source_id TEXT REFERENCES ledger_candidates (id),
            target_id TEXT NOT NULL REFERENCES ledger_candidates (id),
            action TEXT NOT NULL,
            created REAL NOT NULL
        )""",
        "CREATE INDEX ledger_transitions_by_subject ON ledger_transitions (subject)",
        """CREATE TABLE ledger_invariants (
            id INTEGER PRIMARY KEY,
            subject TEXT NOT NULL,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            proposition TEXT NOT NULL,
            kind TEXT NOT NULL,
            required INTEGER NOT NULL,
            observables TEXT NOT NULL,
            scenarios TEXT NOT NULL,
            condition TEXT NOT NULL,
            spec_sha256 TEXT NOT NULL,
            created REAL NOT NULL,
            UNIQUE (subject, name, version)
        )""",
        """CREATE TABLE ledger_evidence (
            id INTEGER PRIMARY KEY,
            invariant_id INTEGER NOT NULL REFERENCES ledger_invariants (id),
            candidate_id TEXT NOT NULL REFERENCES ledger_candidates (id),
            scenario TEXT NOT NULL,
            observables TEXT NOT NULL,
            measurements TEXT NOT NULL,
            adjudication TEXT NOT NULL
                CHECK (adjudication IN ('supported', 'violated', 'inconclusive')),
            note TEXT NOT NULL,
            tool_call_id INTEGER REFERENCES tool_calls (id),
            created REAL NOT NULL
        )""",
        "CREATE INDEX ledger_evidence_by_candidate ON ledger_evidence (candidate_id)",
        """CREATE TABLE ledger_submissions (
            id INTEGER PRIMARY KEY,
            candidate_id TEXT NOT NULL REFERENCES ledger_candidates (id),
            subject TEXT NOT NULL,
            kind TEXT NOT NULL,
            content TEXT NOT NULL,
            readiness TEXT NOT NULL,
            override INTEGER NOT NULL,
            note TEXT NOT NULL,
            created REAL NOT NULL
        )""",
        *[
            f"""CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table}
            BEGIN
                SELECT RAISE(
                    ABORT, '{table} is append-only ({verb} refused): record a new row instead'
                );
            END"""
            for table in (
                "ledger_candidates",
                "ledger_transitions",
                "ledger_invariants",
                "ledger_evidence",
                "ledger_submissions",
            )
            for verb in ("UPDATE", "DELETE")
        ],
    ],
]
