"""One module per problem family; each defines `FAMILY: Family` (or `FAMILIES: list[Family]`).
registry.families() finds them; no list to keep up to date here."""
