"""Tool-use evaluation: cases, a runner, a judge and a report (`pet bench tools`)."""
