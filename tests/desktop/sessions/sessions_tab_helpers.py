"""What the Sessions tests know about the demo home's story."""

#: The demo's last session: it taught two entries, created one skill and patched another.
KUBERNETES_SESSION = "20261106_012"
K8S_MEMORY = "Since November ledger-api runs on Kubernetes"
K8S_USER = "New to Kubernetes (since November)"
