"""A labelled set of memory-entry pairs for the near-duplicate finder.

``duplicate``: the same fact said twice; ``overlap``: one entry largely repeats the other
and a merge would lose nothing; ``unrelated``: different facts, many of them sharing a
vocabulary on purpose (the same project, tool or person), so that precision means
something. Written for this project as realistic developer memory.
"""

DUPLICATE = "duplicate"
OVERLAP = "overlap"
UNRELATED = "unrelated"

PAIRS: list[tuple[str, str, str]] = [
    # --- duplicates ---------------------------------------------------------------------
    ("User prefers fish shell over bash.", "The user prefers the fish shell, not bash.", DUPLICATE),
    ("Project blog deploys with rsync to deploy@blog:/srv/blog.",
     "Blog is deployed via rsync to deploy@blog:/srv/blog", DUPLICATE),
    ("Use pnpm for the web app; npm lockfiles are not committed.",
     "The web app uses pnpm; npm lockfiles are never committed.", DUPLICATE),
    ("Run tests with `make test`; it builds a fresh venv.",
     "Tests run with `make test`, which builds a fresh venv.", DUPLICATE),
    ("User's name is Dana Whitfield, based in Lisbon.", "User is Dana Whitfield, based in Lisbon.", DUPLICATE),
    ("Keep answers short: the command first, explanation after.",
     "Answers should be short: command first, then the explanation.", DUPLICATE),
    ("The staging database is Postgres 15 on db-staging.internal:5432.",
     "Staging DB: Postgres 15 at db-staging.internal:5432.", DUPLICATE),
    ("CI runs on GitHub Actions; the workflow file is .github/workflows/ci.yml.",
     "GitHub Actions runs CI from .github/workflows/ci.yml.", DUPLICATE),
    ("User writes commit messages in the imperative mood.",
     "Commit messages: imperative mood, as the user writes them.", DUPLICATE),
    ("The API server listens on port 8080 in development.",
     "In development the API server listens on port 8080.", DUPLICATE),
    ("Docker images are pushed to ghcr.io/acme/api.", "Push Docker images to ghcr.io/acme/api.", DUPLICATE),
    ("User works in UTC+1 (Berlin) and starts around 9am.",
     "User is in Berlin, UTC+1, starting work around 9am.", DUPLICATE),
    ("Python 3.12 is the project's target version.", "The project targets Python 3.12.", DUPLICATE),
    ("Format Python with ruff format, line length 100.",
     "Python formatting: ruff format with line length 100.", DUPLICATE),
    ("Never force-push to main; open a pull request instead.",
     "Do not force-push to main, open a pull request instead.", DUPLICATE),
    ("The user's editor is Neovim with LazyVim.", "User edits in Neovim (LazyVim config).", DUPLICATE),
    ("Secrets live in 1Password, vault 'Engineering'.",
     "Secrets are kept in the 1Password vault 'Engineering'.", DUPLICATE),
    ("Kubernetes cluster prod-eu runs on GKE in europe-west1.",
     "The prod-eu Kubernetes cluster is GKE, region europe-west1.", DUPLICATE),
    ("Use conventional commits (feat:, fix:, chore:) in this repo.",
     "This repo uses conventional commits: feat:, fix:, chore:.", DUPLICATE),
    ("The frontend is React 18 with Vite.", "Frontend: React 18 built with Vite.", DUPLICATE),
    ("User dislikes emoji in code comments.", "No emoji in code comments, the user dislikes them.", DUPLICATE),
    ("Migrations are run with alembic upgrade head.", "Run migrations with `alembic upgrade head`.", DUPLICATE),
    ("The monorepo root is ~/code/acme and services live under services/.",
     "Monorepo root: ~/code/acme; services live in services/.", DUPLICATE),
    ("Logs are shipped to Grafana Loki; query them with logcli.",
     "Logs go to Grafana Loki, queried with logcli.", DUPLICATE),
    ("User wants British spelling in documentation.", "Documentation should use British spelling.", DUPLICATE),
    ("Release tags look like v2.3.1 and trigger the publish workflow.",
     "Tags like v2.3.1 trigger the publish workflow for a release.", DUPLICATE),
    ("The VPS is a Hetzner CX22 running Debian 12.", "VPS: Hetzner CX22 with Debian 12.", DUPLICATE),
    ("Purge the CDN cache after each blog deploy.", "After deploying the blog, purge the CDN cache.", DUPLICATE),
    ("User's GitHub handle is dwhitfield.", "GitHub handle of the user: dwhitfield.", DUPLICATE),
    ("The test database is reset by scripts/reset_test_db.sh.",
     "scripts/reset_test_db.sh resets the test database.", DUPLICATE),
    ("Prefer httpx over requests for new Python code.", "For new Python code prefer httpx to requests.", DUPLICATE),
    ("The mobile app is Flutter 3.22, iOS and Android.", "Mobile app: Flutter 3.22 for iOS and Android.", DUPLICATE),
    ("On-call rotation is managed in PagerDuty, schedule 'Backend'.",
     "PagerDuty schedule 'Backend' manages the on-call rotation.", DUPLICATE),
    ("User reviews pull requests in the morning only.", "The user only reviews pull requests in the morning.", DUPLICATE),
    ("Terraform state is stored in the gs://acme-tf-state bucket.",
     "Terraform state lives in bucket gs://acme-tf-state.", DUPLICATE),
    ("Use `uv pip install` instead of pip in this project.",
     "In this project install with `uv pip install`, not plain pip.", DUPLICATE),
    ("The docs site is built with MkDocs Material and hosted on Netlify.",
     "Docs: MkDocs Material, hosted on Netlify.", DUPLICATE),
    ("Redis 7 is the cache and the Celery broker.", "Redis 7 serves as cache and Celery broker.", DUPLICATE),
    ("User is allergic to long meetings; prefers async updates in Slack.",
     "Prefers async Slack updates to long meetings.", DUPLICATE),
    ("The laptop is a MacBook Pro M3 with 36 GB RAM.", "User's laptop: MacBook Pro M3, 36 GB RAM.", DUPLICATE),
    # --- overlaps: one entry mostly repeats the other --------------------------------------
    ("Blog deploy: rsync -av --delete public/ deploy@blog:/srv/blog.",
     "Blog deploy: rsync -av --delete public/ deploy@blog:/srv/blog, then purge the CDN cache via "
     "curl -X POST https://cdn.example/purge.", OVERLAP),
    ("User prefers fish shell.", "User prefers fish shell with the starship prompt and uses tmux daily.", OVERLAP),
    ("Tests: `make test`.", "Tests: `make test` builds a venv; use `pytest -q tests/engine` for a quick run.", OVERLAP),
    ("Staging DB is Postgres 15.", "Staging DB is Postgres 15 on db-staging.internal:5432, user app_rw, "
     "password in 1Password.", OVERLAP),
    ("The frontend uses React 18.", "The frontend uses React 18, Vite, TanStack Query and Tailwind.", OVERLAP),
    ("CI runs on GitHub Actions.", "CI runs on GitHub Actions with a matrix of Python 3.11 and 3.12 on "
     "ubuntu-latest.", OVERLAP),
    ("User's name is Dana Whitfield.", "User's name is Dana Whitfield; she/her; senior backend engineer at Acme.",
     OVERLAP),
    ("Docker images go to ghcr.io/acme/api.", "Docker images go to ghcr.io/acme/api, tagged with the git "
     "short sha and latest.", OVERLAP),
    ("Use ruff for linting.", "Use ruff for linting and formatting; the config is in pyproject.toml under "
     "[tool.ruff].", OVERLAP),
    ("Kubernetes prod cluster runs on GKE.", "Kubernetes prod cluster runs on GKE europe-west1; deploy with "
     "helm upgrade --install api charts/api.", OVERLAP),
    ("Migrations: alembic upgrade head.", "Migrations: alembic upgrade head, after exporting DATABASE_URL from "
     ".env.staging.", OVERLAP),
    ("Keep answers short.", "Keep answers short and put the command first; explain only when asked.", OVERLAP),
    ("Logs are in Grafana Loki.", "Logs are in Grafana Loki; the api service label is app=api, namespace prod.",
     OVERLAP),
    ("The VPS runs Debian 12.", "The VPS runs Debian 12 with Caddy as reverse proxy and automatic TLS.",
     OVERLAP),
    ("Terraform state bucket: gs://acme-tf-state.", "Terraform state bucket gs://acme-tf-state, locking via "
     "the GCS backend; run terraform init -reconfigure after switching workspaces.", OVERLAP),
    ("User works from Berlin.", "User works from Berlin, UTC+1, usually online 9:00-17:30, no calls on Fridays.",
     OVERLAP),
    ("Secrets are in 1Password.", "Secrets are in 1Password vault Engineering; fetch them with op read "
     "op://Engineering/...", OVERLAP),
    ("Release tags look like v2.3.1.", "Release tags look like v2.3.1; pushing one runs the publish workflow "
     "which uploads to PyPI.", OVERLAP),
    ("Redis is the Celery broker.", "Redis is the Celery broker and result backend; the worker runs with "
     "celery -A app worker -l info.", OVERLAP),
    ("The docs are built with MkDocs.", "The docs are built with MkDocs Material; preview with mkdocs serve on "
     "port 8001.", OVERLAP),
    ("Commit messages: conventional commits.", "Commit messages: conventional commits with a scope, e.g. "
     "fix(api): handle empty body.", OVERLAP),
    ("The mobile app is written in Flutter.", "The mobile app is written in Flutter 3.22; run flutter test "
     "before pushing and keep golden files updated.", OVERLAP),
    ("On-call is in PagerDuty.", "On-call is in PagerDuty, schedule Backend; escalation after 15 minutes to "
     "the team lead.", OVERLAP),
    ("Prefer httpx for HTTP in Python.", "Prefer httpx for HTTP in Python, with a shared AsyncClient and "
     "timeouts of 10 seconds.", OVERLAP),
    ("Monorepo root is ~/code/acme.", "Monorepo root is ~/code/acme; services in services/, shared libs in "
     "libs/, infra in infra/.", OVERLAP),
    ("User's laptop is a MacBook Pro M3.", "User's laptop is a MacBook Pro M3 with 36 GB RAM running macOS "
     "Sequoia and Homebrew.", OVERLAP),
    # --- unrelated, often on purpose sharing a topic -----------------------------------------
    ("User prefers fish shell over bash.", "The blog is deployed with rsync to the VPS.", UNRELATED),
    ("Staging DB is Postgres 15 on db-staging.internal.", "Production DB is Postgres 16 on Cloud SQL with "
     "point-in-time recovery.", UNRELATED),
    ("Run tests with make test.", "Run the linter with make lint before committing.", UNRELATED),
    ("The frontend uses React 18 with Vite.", "The admin dashboard is server-rendered Django templates.",
     UNRELATED),
    ("Docker images are pushed to ghcr.io/acme/api.", "Docker Desktop is not allowed; use colima on macOS.",
     UNRELATED),
    ("User's name is Dana Whitfield.", "The team lead is Marco Rossi; escalate outages to him.", UNRELATED),
    ("CI runs on GitHub Actions.", "Nightly jobs run on a cron schedule in Cloud Scheduler.", UNRELATED),
    ("Python 3.12 is the target version.", "Node 20 LTS is required for the frontend build.", UNRELATED),
    ("Keep answers short.", "Explain the reasoning in detail when reviewing architecture proposals.", UNRELATED),
    ("The API listens on port 8080 in development.", "The metrics endpoint is /metrics on port 9100.",
     UNRELATED),
    ("Purge the CDN cache after each blog deploy.", "The CDN is Bunny; its API key is in 1Password.", UNRELATED),
    ("Use pnpm for the web app.", "The Python services use uv for dependency management.", UNRELATED),
    ("Kubernetes prod-eu runs on GKE.", "The on-prem cluster in the office runs k3s on three Intel NUCs.",
     UNRELATED),
    ("Migrations are run with alembic upgrade head.", "Seed data for local development comes from "
     "fixtures/dev.json.", UNRELATED),
    ("User is in Berlin, UTC+1.", "The customer support team sits in Manila.", UNRELATED),
    ("Secrets live in 1Password.", "Feature flags live in LaunchDarkly, project acme-web.", UNRELATED),
    ("The VPS is a Hetzner CX22.", "Backups go to Backblaze B2 every night at 03:00.", UNRELATED),
    ("Use conventional commits in this repo.", "Squash-merge pull requests; keep the PR title as the commit "
     "title.", UNRELATED),
    ("The docs site is built with MkDocs.", "The changelog is generated by towncrier from newsfragments/.",
     UNRELATED),
    ("Redis 7 is the cache.", "Elasticsearch 8 powers the product search.", UNRELATED),
    ("User dislikes emoji in code comments.", "User likes detailed docstrings on public functions.", UNRELATED),
    ("Tests use pytest with the -q flag.", "Load tests use k6 scripts in perf/.", UNRELATED),
    ("The mobile app is Flutter 3.22.", "The desktop app is Electron 30 with a Rust sidecar.", UNRELATED),
    ("Terraform state is in gs://acme-tf-state.", "Terraform modules are pinned to exact versions in "
     "versions.tf.", UNRELATED),
    ("User reviews pull requests in the morning.", "User takes Wednesdays afternoons off for climbing.",
     UNRELATED),
    ("Logs are shipped to Grafana Loki.", "Traces go to Honeycomb via OpenTelemetry.", UNRELATED),
    ("The monorepo root is ~/code/acme.", "Personal dotfiles are in ~/dotfiles, managed with chezmoi.",
     UNRELATED),
    ("Release tags look like v2.3.1.", "Hotfix branches are named hotfix/<ticket-id>.", UNRELATED),
    ("On-call rotation is in PagerDuty.", "Incident write-ups go in Notion under Postmortems.", UNRELATED),
    ("The user's editor is Neovim.", "The user's terminal is WezTerm with the Iosevka font.", UNRELATED),
    ("Prefer httpx over requests.", "Prefer pathlib over os.path in new code.", UNRELATED),
    ("The laptop is a MacBook Pro M3.", "The build server is a Ryzen 9 desktop in the office.", UNRELATED),
    ("The API server uses FastAPI.", "The worker uses Celery with Redis as the broker.", UNRELATED),
    ("Blog posts are written in Markdown under content/posts.", "Hugo builds the blog into public/.",
     UNRELATED),
    ("The project uses SQLite for local caching.", "The project uses Postgres for the main data store.",
     UNRELATED),
    ("User prefers dark mode in every tool.", "User prefers metric units and 24-hour time.", UNRELATED),
    ("Use black for formatting the legacy service.", "Use ruff format for all new services.", UNRELATED),
    ("The API rate limit is 100 requests per minute per key.", "API keys are rotated every 90 days.", UNRELATED),
    ("Dependabot opens weekly PRs for npm packages.", "Renovate is disabled in this organisation.", UNRELATED),
    ("Sentry DSN for the web app is in .env.production.", "The web app's error boundary shows a retry button.",
     UNRELATED),
    ("The user has two monitors and a vertical one for logs.", "The user uses a split ergonomic keyboard.",
     UNRELATED),
    ("Invoices are generated monthly by the billing service.", "The billing service is written in Go 1.22.",
     UNRELATED),
    # hard ones: same template, different facts
    ("Staging API URL is https://api.staging.acme.dev.", "Production API URL is https://api.acme.dev.",
     UNRELATED),
    ("The staging cluster has 3 nodes of e2-standard-4.", "The production cluster has 12 nodes of "
     "n2-standard-8.", UNRELATED),
    ("User's manager is Priya Nair.", "User's partner is called Sam.", UNRELATED),
    ("Project alpha uses Django 5.", "Project beta uses Flask 3.", UNRELATED),
    ("The web app's Sentry project is acme-web.", "The mobile app's Sentry project is acme-mobile.", UNRELATED),
    ("Run the API locally with docker compose up api.", "Run the worker locally with docker compose up "
     "worker.", UNRELATED),
]
