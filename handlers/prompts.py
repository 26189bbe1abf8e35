"""Prompts whose text is built from the project: handlers of the bundled ``prompts.yaml``.

A template prompt can only ask the model to go and look; these put what it would look at
into the prompt itself, through the same tools the model would call (and so under the same
rules: the git tools' confinement and hardening apply unchanged).
"""

from tooldeck import ToolContext, ToolFailed

from .git import git_log

__all__ = ["explain_history"]

MAX_HISTORY = 50
"""The most commits explain_history puts in its prompt."""


def explain_history(path: str, context: ToolContext, max_count: str = "10") -> str:
    """Ask how ``path`` came to be, with its recent commits listed in the prompt."""
    try:
        count = int(max_count)
    except ValueError:
        raise ToolFailed(
            f"max_count must be a whole number, not {max_count!r}", kind="invalid_arguments"
        ) from None
    if not 1 <= count <= MAX_HISTORY:
        raise ToolFailed(
            f"max_count must be between 1 and {MAX_HISTORY}, not {count}", kind="invalid_arguments"
        )
    if context.project_dir is None:
        raise ToolFailed("this prompt needs the project directory (--project-dir)")
    log = git_log(max_count=count, path=path, project_dir=context.project_dir, context=context)
    commits = log["commits"]
    if not commits:
        history = "(no commit has touched it yet)"
    else:
        history = "\n".join(
            f"- {c['hash'][:12]} {c['date']} {c['author']}: {c['subject']}" for c in commits
        )
    return (
        f"Explain how {path} came to be what it is now. Its most recent commits, newest "
        f"first:\n{history}\n\nRead the file with read_file and the commits that matter with "
        "git_show, then tell the story in a few paragraphs: what it was for at first, what "
        "changed and why, and what a newcomer should know before editing it."
    )
