"""Tool-use evaluation: cases, a runner, a judge and a report (`python run.py bench tools`)."""
