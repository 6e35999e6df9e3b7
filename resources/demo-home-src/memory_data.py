"""The demo home's memory entries and the sessions in which the agent wrote them.

``MEMORY`` and ``USER`` are the entries in file order (the agent appends, so roughly the
order they were learned). ``SESSIONS`` replays the conversations: a turn is
``("user", text)``, ``("assistant", text)``, ``("memory", target, content)`` for one call
of the agent's ``memory`` tool, which is what dates each memory card in the graph, or
``("skill", action, name)`` for one ``skill_manage`` call (``create`` writes the skill as
it was first written, ``patch`` brings it to its text today). ``title`` is the session's
title as the agent named it.

``PENDING`` are the writes staged for approval at the end of the story (upstream's queue):
``(id, subsystem, origin, session number, days before the story's end, payload)``.
"""

from __future__ import annotations

M_LEDGER = (
    "ledger-api (~/code/ledger-api): Python 3.12 + FastAPI, managed with uv. Tests: "
    "`uv run pytest -q`; `make lint` runs ruff and mypy --strict, and CI fails on any mypy error."
)
M_MIGRATIONS = (
    "ledger-api migrations use Alembic, one migration per PR, named "
    "YYYYMMDD_short_description.py. Never edit a migration that is already on main; add a new "
    "one instead."
)
M_DOCKER_DB = (
    "Local Postgres for ledger-api runs in Docker: `docker compose up -d db`, listening on port "
    "5433 (5432 is taken by the system Postgres)."
)
M_PNPM = (
    "ledger-web uses pnpm, not npm, and Node 20 pinned in .nvmrc; run `fnm use` in the repo "
    "before `pnpm build` or the build picks the wrong Node."
)
M_GH = (
    "The gh CLI is logged in. Open pull requests with `gh pr create --fill --draft`: the team "
    "reviews drafts first and marks them ready itself."
)
M_RELEASES = (
    "Releases go through the GitHub Actions \"release\" workflow, triggered by pushing a vX.Y.Z "
    "tag. Never deploy by hand from a laptop."
)
M_RG = (
    "rg and fd are installed; prefer them to grep -r and find, which are slow on the ledger "
    "monorepo."
)
M_INCIDENT = (
    "8 July incident: settlement writes queued behind an idle-in-transaction session holding "
    "row locks on ledger_entries. Never await the PSP inside `session.begin()`."
)
M_GRAFANA = (
    "Grafana dashboards are provisioned from ops/grafana/*.json in ledger-api; edits made in "
    "the Grafana UI are lost on the next deploy."
)
M_WEBHOOKS = (
    "PSP webhooks are signed with HMAC-SHA256 over `<timestamp>.<raw body>`; verify the raw "
    "bytes before parsing JSON. Staging signing key lives in the team vault, never in the repo."
)
M_FRIDAY = (
    "Friday update goes to #payments-team before 16:00 Lisbon time: shipped / in review / "
    "blocked / next, three bullets each at most."
)
M_K8S = (
    "Since November ledger-api runs on Kubernetes: namespace `ledger`, deployed by the release "
    "workflow with Helm. kubectl context staging-eu is fine to inspect; prod-eu is read-only."
)

MEMORY = [
    M_LEDGER, M_MIGRATIONS, M_DOCKER_DB, M_PNPM, M_GH, M_RELEASES, M_RG,
    M_INCIDENT, M_GRAFANA, M_WEBHOOKS, M_FRIDAY, M_K8S,
]

U_NAME = (
    "Name: Dana Okafor. Backend engineer on the payments team, based in Lisbon; usually works "
    "09:00-17:30 local time."
)
U_CONCISE = "Prefers concise answers: the command or the diff first, the explanation after, no preamble."
U_TYPES = (
    "Writes Python with type hints everywhere and prefers dataclasses to plain dicts; dislikes "
    "one-letter names outside comprehensions."
)
U_EDITOR = "Works in Neovim inside tmux, zsh on Debian 12."
U_GIT = (
    "Wants to be asked before any git push, force-push or history rewrite; local commits are "
    "fine without asking."
)
U_BRITISH = "Uses British spelling in docs and commit messages."
U_TEAM = "Team lead is Priya Raman. Pairs with Tomás on ledger-web on Tuesdays and Thursdays."
U_TABLES = "Prefers tables for comparisons and numbers; no emoji in written updates."
U_K8S = (
    "New to Kubernetes (since November): likes each kubectl output explained in two lines, "
    "with the command that produced it."
)

USER = [U_NAME, U_CONCISE, U_TYPES, U_EDITOR, U_GIT, U_BRITISH, U_TABLES, U_TEAM, U_K8S]

SESSIONS = [
    {"start": "2026-04-20T09:14:00", "title": "Local set-up of ledger-api", "turns": [
        ("user", "I'm Dana, I just joined the payments team. Can you help me get ledger-api running locally?"),
        ("assistant", "Sure. The repo uses uv; the database runs in Docker on port 5433 because 5432 is taken."),
        ("memory", "user", U_NAME),
        ("memory", "memory", M_LEDGER),
        ("memory", "memory", M_DOCKER_DB),
        ("user", "Works. I'm in Neovim in tmux by the way, zsh on Debian 12."),
        ("memory", "user", U_EDITOR),
        ("assistant", "Noted. `uv run pytest -q` passes: 412 tests in 38 s."),
        ("skill", "create", "docker-compose-dev-db"),
    ]},
    {"start": "2026-04-22T10:02:00", "title": "Settlement currency migration", "turns": [
        ("user", "I need a column for the settlement currency. How do migrations work here?"),
        ("memory", "memory", M_MIGRATIONS),
        ("assistant", "Added 20260422_settlement_currency.py; upgrade, downgrade and upgrade again all pass."),
        ("skill", "create", "alembic-migration"),
    ]},
    {"start": "2026-04-23T14:40:00", "title": "Draft PR and push rules", "turns": [
        ("user", "Open a PR for it. Short answers please, just the command first."),
        ("memory", "user", U_CONCISE),
        ("memory", "memory", M_GH),
        ("user", "And please always ask me before you push anything."),
        ("memory", "user", U_GIT),
        ("assistant", "Understood. Ready to push feature/settlement-currency — shall I?"),
        ("skill", "create", "draft-pr-with-gh"),
    ]},
    {"start": "2026-04-27T11:20:00", "title": "Commit message style", "turns": [
        ("user", "Rewrite the commit message: British spelling, and no dicts where a dataclass fits."),
        ("memory", "user", U_BRITISH),
        ("memory", "user", U_TYPES),
        ("assistant", "settlements: normalise currency codes — body explains why ISO 4217 codes are upper-cased."),
        ("skill", "create", "commit-message-british"),
    ]},
    {"start": "2026-05-12T16:05:00", "title": "Searching the monorepo", "turns": [
        ("user", "grep -r takes forever on the monorepo."),
        ("memory", "memory", M_RG),
        ("assistant", "rg finds it in 0.4 s: app/settlements/currency.py:88."),
    ]},
    {"start": "2026-05-29T15:30:00", "source": "telegram", "title": "Friday update", "turns": [
        ("user", "Draft my Friday update, it goes to #payments-team before four."),
        ("memory", "memory", M_FRIDAY),
        ("user", "Put the numbers in a table, and no emoji please."),
        ("memory", "user", U_TABLES),
        ("assistant", "Shipped: settlement currency. In review: uv bump. Blocked: none. Next: release workflow."),
        ("skill", "create", "weekly-update-summary"),
    ]},
    {"start": "2026-06-04T10:10:00", "title": "Releases without Jenkins", "turns": [
        ("user", "We're moving off Jenkins. How do releases work with the new workflow?"),
        ("memory", "memory", M_RELEASES),
        ("assistant", "Push a vX.Y.Z tag from main; the release workflow builds and deploys."),
        ("skill", "create", "github-actions-release"),
    ]},
    {"start": "2026-07-08T22:47:00", "title": "Settlement lock incident", "turns": [
        ("user", "Settlements are stuck in production, can you look at the locks? Read-only."),
        ("assistant", "pid 48121 is idle in transaction for 14 minutes and blocks 23 settlement writes."),
        ("user", "Priya says cancel it."),
        ("assistant", "pg_cancel_backend(48121) returned true; the queue drained in 40 s."),
        ("memory", "memory", M_INCIDENT),
        ("skill", "create", "postgres-lock-triage"),
    ]},
    {"start": "2026-07-10T13:00:00", "title": "Lock-wait dashboard panel", "turns": [
        ("user", "Add a lock-wait panel to the ledger dashboard."),
        ("memory", "memory", M_GRAFANA),
        ("assistant", "Panel added to ops/grafana/ledger.json; PR opened as a draft."),
        ("skill", "create", "grafana-dashboard-json"),
    ]},
    {"start": "2026-08-05T09:35:00", "title": "ledger-web build with Tomás", "turns": [
        ("user", "I'm pairing with Tomás on ledger-web today; the build fails on my machine."),
        ("memory", "memory", M_PNPM),
        ("memory", "user", U_TEAM),
        ("assistant", "Your shell had Node 22; after `fnm use` the build passes."),
        ("skill", "create", "pnpm-workspace-build"),
    ]},
    {"start": "2026-09-09T11:45:00", "title": "Webhook signature failures", "turns": [
        ("user", "Webhook signature checks fail on staging for about 1 in 50 events."),
        ("assistant", "We verify the parsed JSON; the PSP signs the raw bytes. Switching to request.body()."),
        ("memory", "memory", M_WEBHOOKS),
        ("skill", "create", "webhook-signature-verify"),
    ]},
    {"start": "2026-11-06T10:20:00", "title": "First Kubernetes deploy", "turns": [
        ("user", "First deploy on Kubernetes today. Walk me through the rollout, I'm new to kubectl."),
        ("memory", "user", U_K8S),
        ("memory", "memory", M_K8S),
        ("assistant", "`kubectl -n ledger rollout status deploy/ledger-api`: 3/3 replicas updated, no restarts."),
        ("skill", "create", "k8s-rollout-check"),
        ("skill", "patch", "docker-compose-dev-db"),
    ]},
]

#: Staged at the end of the story; the stale one pins a USER.md entry in an older wording.
U_K8S_OLD = "New to Kubernetes: explain kubectl output."
PENDING = [
    ("3f9c01ab", "memory", "background_review", 12, 9, {
        "action": "replace", "target": "user", "old_text": "New to Kubernetes",
        "content": "Comfortable with kubectl since late November; explain only Helm and rollout output.",
        "matched_entry": U_K8S_OLD}),
    ("5d0e7a11", "memory", "foreground", 12, 2, {
        "action": "add", "target": "memory", "old_text": None,
        "content": "Staging for ledger-api is https://ledger.staging-eu.internal; prod-eu needs a "
                   "change ticket for anything beyond kubectl get/describe."}),
    ("b71e2d04", "skills", "background_review", 12, 1, "pnpm-workspace-build"),
]
