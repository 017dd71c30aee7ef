"""The judges that are rules, not models: no tokens, and their verdicts are no finding."""

RULE_JUDGES = ("rubric",)
