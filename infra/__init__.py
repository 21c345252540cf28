"""The account stack's CloudFormation template (`planner-stack.yaml`), shipped as package data so
that `planner infra` works from a wheel install as well as from a checkout. See infra/README.md."""
