"""What the review asks of its model, in our own words (intent of spec §4.5).

Three instructions exist, as upstream: memory only, skills only, and both. The choice
follows upstream's rule: both flags -> combined, memory only -> memory, otherwise skills.
A person's focus text, when given, is appended and takes priority.
"""

from __future__ import annotations

NOTHING_TO_SAVE = "Nothing to save."

SYSTEM_PROMPT = (
    "You are the background reviewer of a personal AI agent. You read one of its past "
    "conversations and decide what the agent should keep from it: facts about the user in "
    "its persistent memory, and reusable procedures in its skill library. You act only "
    "through the tools you are given; every other action is unavailable. Work "
    "carefully: what you write is shown to the agent at the start of every future session."
)

_MEMORY_PART = """\
MEMORY. Look through the conversation above for two kinds of lasting facts:
1. The user: who they are, what they want, their preferences, habits and personal details \
they chose to share.
2. How they want the agent to work: corrections to its behaviour, expectations about \
tone, format or verbosity, the way they like their work done.
Save what is durable with the memory tool: target "user" for the person, target "memory" \
for notes about their environment, conventions and lessons. Read the current entries in \
the system prompt first: extend or correct an existing entry with replace rather than \
adding a near-duplicate, and keep entries short. Do not save trivia, task progress, \
one-off details or anything easy to look up again."""

_SKILL_PART = """\
SKILLS. A skill is the agent's written procedure for a class of task, done the way this \
user wants it. Most conversations teach something worth keeping, so look hard before \
deciding there is nothing.
Signals worth acting on: the user corrected the agent's style, tone, format or \
verbosity (frustration counts); the user corrected the workflow or the order of steps; a \
non-trivial technique or fix was found; a skill the agent used turned out wrong or out \
of date.
Prefer, in this order: (1) patch a skill used in this conversation; (2) extend an \
existing broader skill (find it with skills_list and skill_view); (3) add a support file \
under references/, templates/ or scripts/ with write_file and a one-line pointer in \
SKILL.md; (4) create a new skill for the whole class of task. A new skill's name \
describes the class of task, never an error message, a ticket number, a code name or a \
single library.
How to write them: procedure first, each pitfall attached to the step where it bites, \
written as a general rule with one short reason. No ticket numbers, dates or quotes from \
the user. A lesson learned twice is one rule: search before adding. Fix wrong text where \
it stands instead of appending an update. Put style and format preferences into the \
skill body as well, not only into memory.
Read before you write: call skill_view on the exact file (SKILL.md or the support file) \
in this review before you edit, patch or overwrite it; text quoted in the conversation \
does not count. If a write is refused for that reason, view the file once and retry \
once.
Leave alone: bundled, hub-installed and external skills, pinned skills, and skills the \
user owns (tell them about the change instead). If only such skills would change, there \
is nothing to save.
Do not record: failures that depend on the environment (a missing program, package or \
credential), claims that a tool is broken, errors that went away by themselves, a \
narrative of this one task, or an approach that never actually worked. A fix for a \
setup problem belongs in a setup or troubleshooting skill."""

_CLOSING = (
    f'When you are done, or if there is truly nothing worth keeping, reply with a short '
    f'summary, or exactly "{NOTHING_TO_SAVE}" and stop.'
)

MEMORY_REVIEW_PROMPT = (
    "Review the conversation above and decide whether anything belongs in persistent "
    f"memory.\n\n{_MEMORY_PART}\n\n{_CLOSING}"
)

SKILL_REVIEW_PROMPT = (
    "Review the conversation above and decide how the agent's skills should change.\n\n"
    f"{_SKILL_PART}\n\n{_CLOSING}"
)

COMBINED_REVIEW_PROMPT = (
    "Review the conversation above and update two things: what the agent remembers about "
    "the user, and the skills it follows. Act on whichever has a real signal; both is "
    f"fine.\n\n{_MEMORY_PART}\n\n{_SKILL_PART}\n\n{_CLOSING}"
)

TOOLS_ONLY_NOTE = (
    "Only the memory and skill tools listed for this review can be called; any other tool "
    "is refused at run time, so do not try one."
)


def choose_prompt(review_memory: bool, review_skills: bool) -> str:
    if review_memory and review_skills:
        return COMBINED_REVIEW_PROMPT
    if review_memory:
        return MEMORY_REVIEW_PROMPT
    return SKILL_REVIEW_PROMPT


def review_request(review_memory: bool, review_skills: bool, focus: str | None = None) -> str:
    """The user message that starts the review."""
    text = choose_prompt(review_memory, review_skills)
    if focus and focus.strip():
        text += (
            "\n\nThe user asked for this review explicitly, with this focus. It takes "
            f"priority over the general instructions above:\n{focus.strip()}"
        )
    return f"{text}\n\n{TOOLS_ONLY_NOTE}"
