"""Frontmatter shapes the graph-build tests write into their homes: the common shapes
the fast paths take, and the odd ones they must hand on to the full parser. ``{n}`` is the
skill's name, ``{r}`` a related skill's."""

COMMON_SHAPES = [
    "---\nname: {n}\ndescription: Deploy docker the reliable way\nversion: 1.2.3\nauthor: Hermes\n"
    "license: MIT\nmetadata:\n  hermes:\n    tags: [docker, api]\n    related_skills: [{r}]\n---\n# Body\n",
    "---\nname: {n}\ndescription: \"Quoted: with a colon\"\ntags:\n  - logs\n  - k8s\nrelated_skills:\n"
    "  - {r}\ncategory: ops\n---\nbody\n",
    "---\nname: '{n}'\ndescription: Uses &anchor and *stars in text\nmetadata:\n  hermes:\n"
    "    category: data\n    tags: [a, b, yes]\n---\n",
    "\ufeff---\r\nname: {n}\r\ndescription: CRLF and a BOM\r\nrelated_skills: [{r}, missing-one]\r\n---\r\n",
    "---\nname: {n}\ndescription: >\n  folded text\n  over lines\nversion: 2\n---\n",
    "---\nname: {n}\ndescription: a: b: c\nrelated_skills: [{r}]\n---\n",  # not YAML: the naive split
    "---\nname: {n}\ndescription: 2026-13-45\n---\n",  # a date YAML cannot build
    "---\nname: {n}\ndescription: never closed\n",
    "---\nname: [{n}]\ndescription: null\ntags: []\n---\n",
    "---\n# a comment\nname: {n}   \ndescription:    spaced out   \nmetadata:\n  hermes:\n"
    "    related_skills:\n      - {r}\n---\n",
]
