"""The rule-based parser of a tagged solution (seed 002, section 4.1: "a rule-based parser extracts
each tagged block").

What it does with imperfect solutions, so that grading never guesses silently:
- missing: a stage without any tag. Empty: a stage whose tags hold only white space. Both count
  as absent (the missing-stage penalty applies; see ParsedSolution.absent).
- repeated: a stage tagged more than once; the blocks are joined in order (a repeated final
  answer is read from its last line, see final_answer.py).
- nested: a stage opened inside another one; the inner block is its own stage and is cut out
  of the outer one.
- unclosed: an opening tag with no closing tag before the next opening of the same stage ends
  at the next stage tag of any kind (models often forget closers). Stray closing tags are dropped.
- out_of_order: the stages found do not appear in the order of STAGES.
- outside: text that belongs to no stage; it is kept for the report and never graded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel

from workbench_plugins.judging.scoring.stages import STAGES, stage_of_tag

TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z_ ]{1,40}?)\s*>")


class ParsedSolution(BaseModel):
    """The stages found (code -> text, "" when empty) and what was wrong with the tagging."""

    stages: dict[str, str]
    missing: list[str]
    repeated: list[str]
    empty: list[str]
    nested: list[str]
    out_of_order: bool
    outside: str

    @property
    def absent(self) -> list[str]:
        """Stages with no content at all (missing or empty), in STAGES order."""
        gone = set(self.missing) | set(self.empty)
        return [stage for stage in STAGES if stage in gone]

    @property
    def present(self) -> list[str]:
        """Stages with content, in STAGES order."""
        return [stage for stage in STAGES if self.stages.get(stage, "").strip()]


@dataclass
class _Token:
    start: int
    end: int
    stage: str
    closing: bool


@dataclass
class _Block:
    stage: str
    unclosed: bool
    parts: list[str] = field(default_factory=list)


@dataclass
class _State:
    blocks: list[tuple[str, str]] = field(default_factory=list)  # (stage, text) in close order
    opened: list[str] = field(default_factory=list)  # stage per opening tag, in text order
    nested: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    stack: list[_Block] = field(default_factory=list)

    def add_text(self, text: str) -> None:
        (self.stack[-1].parts if self.stack else self.outside).append(text)

    def close_top(self) -> None:
        block = self.stack.pop()
        self.blocks.append((block.stage, "".join(block.parts).strip()))


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for match in TAG.finditer(text):
        stage = stage_of_tag(match.group(2))
        if stage is not None:
            tokens.append(_Token(match.start(), match.end(), stage, match.group(1) == "/"))
    return tokens


def _has_closer(tokens: list[_Token], index: int) -> bool:
    """Whether the opening tag at `index` is closed before its stage opens again."""
    stage = tokens[index].stage
    for token in tokens[index + 1 :]:
        if token.stage == stage:
            return token.closing
    return False


def _walk(text: str, tokens: list[_Token]) -> _State:
    state = _State()
    position = 0
    for index, token in enumerate(tokens):
        state.add_text(text[position : token.start])
        position = token.end
        if state.stack and state.stack[-1].unclosed:
            state.close_top()  # an unclosed block ends at the next tag of any stage
        if not token.closing:
            if state.stack:
                state.nested.append(token.stage)
            state.opened.append(token.stage)
            state.stack.append(_Block(token.stage, unclosed=not _has_closer(tokens, index)))
        elif any(block.stage == token.stage for block in state.stack):
            while state.stack[-1].stage != token.stage:
                state.close_top()  # blocks opened inside and never closed end here
            state.close_top()
        # else: a stray closing tag, dropped
    state.add_text(text[position:])
    while state.stack:
        state.close_top()
    return state


def _in_order(opened: list[str]) -> bool:
    first_seen = list(dict.fromkeys(opened))
    return first_seen == sorted(first_seen, key=STAGES.index)


def parse_solution(text: str) -> ParsedSolution:
    """Split a solution into its tagged stages and report missing, repeated, empty and nested
    stages, the order, and the text outside any tag (see the module docstring for the rules)."""
    state = _walk(text, _tokens(text))
    stages: dict[str, str] = {}
    for stage, content in state.blocks:  # a stage's blocks close in text order
        stages.setdefault(stage, "")
        if content:
            stages[stage] = f"{stages[stage]}\n\n{content}" if stages[stage] else content
    counts = {stage: state.opened.count(stage) for stage in STAGES}
    outside = "\n".join(part.strip() for part in state.outside if part.strip())
    return ParsedSolution(
        stages={stage: stages[stage] for stage in STAGES if stage in stages},
        missing=[stage for stage in STAGES if stage not in stages],
        repeated=[stage for stage in STAGES if counts[stage] > 1],
        empty=[stage for stage in STAGES if stage in stages and not stages[stage]],
        nested=list(dict.fromkeys(state.nested)),
        out_of_order=not _in_order(state.opened),
        outside=outside,
    )
