"""remember / forget / recall: the pet's long-term memory as tools."""

from __future__ import annotations

import re
from typing import Protocol, Sequence

from pet.agent.spelling import mend
from pet.errors import ToolArgumentError, ToolError
from pet.events import MemoryRecord
from pet.memory.recall import about_the_person, best_matches, query_terms, read_id, score
from pet.text import cjk_count
from pet.tools.facts import asks_deleting, dismissal, memory_fact
from pet.tools.registry import Label, Tool, ToolContext

MAX_MEMORY_CHARS = 1000
#: the longest query a recall names back as its topic ("About 'tea', …"); a longer one is a whole question
TOPIC_CHARS = 30
#: a query that asks, in either language: a question, not a topic to name back
_QUESTION = re.compile(r"[?？]|什么|啥|吗|呢|几|哪|谁|多少|怎么|是不是|来着"
                       r"|^(?:what|whats|who|where|when|how|which|do|does|did|is|are|can|could)\b", re.IGNORECASE)
#: ...nor a question's words cut short, no topic either: "my lizard called" of "whats my lizard called again?" (round 46's
#: spent chat set got "About 'my lizard called', I remember:")
_CUT_SHORT = re.compile(r"\b(?:called|named|is|are|was|were|do|does|did|again|at|in|for|to|of|with)\s*$|[叫是在的]$",
                        re.IGNORECASE)
#: a forget by words deletes only a memory holding at least this share of the words' terms; a weaker
#: match is a question
STRONG_MATCH = 2 / 3
#: the words that name a memory as such, not what it holds ("那条memory", "the entry")
_ENTRY = re.compile(r"(?:那|这|哪)(?:一)?(?:条|个)(?:记忆|memory)?|记忆|\b(?:the )?(?:memory|memories|entry|entries)\b",
                    re.IGNORECASE)
#: a word pointing back at someone or something named before ("forget about him", "关于它的那条")
_POINTING = re.compile(r"\b(?:him|her|them|he|she|they)\b|它|他|她", re.IGNORECASE)
_CLAUSE = re.compile(r"[,，.。!！?？;；…]+")
#: words of a request to delete that name nothing ("delete anything about jess pls"), as search terms
_LOOSE_TERMS = frozenset({"anyth", "anything", "everyth", "everything", "stuff", "thing", "all", "about", "pls", "plz",
                          "pleas", "please", "the", "关于", "所有", "全部", "有关", "相关", "东西", "事情",
                          # (the asking words as search terms: "delet" is no word asks_deleting knows)
                          "delet", "remov", "eras", "forget", "wipe", "drop", "scrap", "ditch", "clear", "删掉", "删除",
                          "忘掉", "忘了", "删了"})
#: the memories a name is looked for in: one more holding it makes the name point at no one memory
NAME_SEARCH = 20
#: its search terms (pet.memory.recall.query_terms: stemmed, or two characters)
_ENTRY_TERMS = frozenset({"memor", "entri", "entry", "那条", "这条", "哪条", "那个", "这个", "记忆"})
#: ...unless it holds more than LOOSE_MATCH of them and more than LEAD times as many as any other
#: memory found ("the gym one is outdated, bin it": "gym", 1 of 2, and no other memory has one)
LOOSE_MATCH, LEAD = 1 / 3, 2
#: how much nearer in meaning than any other the one memory a forget's words find must be, to be meant
AGREED_LEAD = 0.03
#: ...and how well its kind of fact must fit the one described (kinds.py, 0 to 1), as must a memory
#: loose words point at. 0.25 let "forget my dog's birthday" delete "dog is named Pepper" (a fit of only
#: 0.27: birthday 0.90 and pet 0.08, against pet 0.90) once the kinds' data grew
AGREED_FIT = 0.35
#: a forget's loose words (no term, or few, in common) mean the memory nearest in meaning when it is this
#: near and nearer than the next by this much. On the forget cases of the spent tool-use sets of rounds 15
#: to 23 (107, three memories each) the nearest always held a word of the one meant; 83 pass these floors
CLEAR_NEAR, CLEAR_LEAD = 0.35, 0.25
#: the least likeness of a memory a forget asks about when its words found none: "do you mean #4 'my sister had her
#: baby'?" to "别再记着我爱喝美式了" (0.26, seen on the page) asks about nothing the person meant
FORGET_GUESS_FLOOR = 0.3
#: memories a recall lists at most: found for a topic, or known about the person
RECALL_LIMIT, OVERVIEW_LIMIT = 8, 12
#: memories close in meaning that a recall offers at most as guesses, beside what its words found
GUESSES = 3


class MemoryStoreLike(Protocol):
    def remember(self, pet_id: int, content: str, *, tag: str = "", source_message_id: int | None = None,
                 conversation_id: int | None = None, asserted_by: str = "person",
                 pending: bool | None = None) -> tuple[MemoryRecord, bool]: ...
    def forget(self, pet_id: int, memory_id: int) -> MemoryRecord | None: ...
    def search(self, pet_id: int, text: str, limit: int = 10) -> list[MemoryRecord]: ...
    def guesses(self, pet_id: int, text: str, count: int = 3, *, floor: float = ...,
                leave_out: Sequence[int] = ()) -> list[MemoryRecord]: ...
    def overview(self, pet_id: int, limit: int = 10) -> list[MemoryRecord]: ...
    def alike(self, pet_id: int, text: str, count: int = 2) -> list[tuple[MemoryRecord, float, float]]: ...
    def fits(self, pet_id: int, text: str, memory_ids: Sequence[int]) -> dict[int, float]: ...


def _share(terms: list[str], text: str) -> float:
    lowered = text.casefold()
    return sum(1 for term in terms if term in lowered) / len(terms)


def who_asserted(content: str, person_words: str, tool_output: list[str]) -> str:
    """Where a fact the model wants to remember came from, by the share of
    its terms (words; two-character pieces of Chinese) found in each source:
    "person" when at least half are in the person's recent words, "tool"
    when a tool's recent output holds more of them than the person's words
    and at least half (a note or file speaking, not the person), otherwise
    "model" (the pet inferred it)."""
    terms = query_terms(content, limit=64)
    if not terms:  # nothing to compare (digits only, one character): trust the person's own wording
        return "person" if content.casefold() in person_words.casefold() else "model"
    said = _share(terms, person_words)
    if said >= 0.5:
        return "person"
    read = max((_share(terms, output) for output in tool_output), default=0.0)
    if read >= 0.5 and read > said:
        return "tool"
    return "model"


def _recalled(query: str, found: list[MemoryRecord], guesses: list[MemoryRecord], language: str) -> str:
    """What a recall says: the memories found, then the guesses, each group under its own lead, in
    the person's language (a reflex shows this result as it is). A whole question ("whats my dog's
    name? im testing you") is not said back as a topic."""
    topic = len(query) <= TOPIC_CHARS and not _QUESTION.search(query) and not _CUT_SHORT.search(query)
    lines = "\n".join(f"#{m.id}: {m.content}" for m in found)
    maybe = "\n".join(f"#{m.id}: {m.content}" for m in guesses)
    zh = language == "zh"
    if found:
        if zh:
            head = f"关于“{query}”，我记得：" if topic else "我记得这些："
        else:
            head = f"About {query!r}, I remember:" if topic else "Here's what I remember:"
        text = f"{head}\n{lines}"
        if guesses:
            text += ("\n也许还有关：\n" if zh else "\nMaybe related too:\n") + maybe
        return text
    if guesses:
        if zh:
            head = f"关于“{query}”，没有对得上的记忆；最接近的是：" if topic else "没有对得上的记忆；最接近的是："
        else:
            head = (f"Nothing I remember matches {query!r}; the closest I have:" if topic
                    else "Nothing I remember matches that; the closest I have:")
        return f"{head}\n{maybe}"
    if zh:
        return f"关于“{query}”，没有找到记忆。" if topic else "没有找到对得上的记忆。"
    return f"No memories match {query!r}." if topic else "No memories match that."


def _asked_to_delete(ctx: ToolContext) -> bool:
    """Whether the person asked to forget or delete something: in this message, or in the one before
    it when this one answers the pet's "which one?" ("#3", "对，就是那条"); a command ("/yes" to a
    forget the person was shown, "/forget 3") is their word too."""
    if ctx.message.lstrip().startswith("/") or asks_deleting(ctx.message) or asks_deleting(mend(ctx.message)):
        return True  # ("forgett my old phone number, it's not mine anymore": round 38's spent set)
    said = ctx.person_words.rstrip()
    if said.endswith(ctx.message.strip()):
        said = said[: len(said) - len(ctx.message.strip())]
    before = said.rstrip().rsplit("\n", 1)[-1]
    return asks_deleting(before)


def _as_name(term: str, content: str) -> bool:
    """Whether the search term `term` is a name in `content`: a capitalised word not at its start
    ("boyfriend is called Lukas"), or what something is called in Chinese ("养了一只叫可乐的柯基")."""
    if cjk_count(term):
        return re.search(r"(?:叫|名叫|名字是|名字叫|叫做)" + re.escape(term), content) is not None
    return any(match.start() > 0 and match.group()[:1].isupper()
               for match in re.finditer(r"\b" + re.escape(term) + r"\w*", content, re.IGNORECASE))


def _alone(best: MemoryRecord, found: list[MemoryRecord], terms: list[str]) -> bool:
    """Whether `best` shares more than LEAD times as many of the description's `terms` as any other
    memory found: then the person's loose words ("the gym one is outdated, bin it") point at it,
    though it holds few of them."""
    others = [score(m.content, terms) for m in found if m.id != best.id]
    return score(best.content, terms) > LEAD * max(others, default=0)


def _forgot(record: MemoryRecord, language: str) -> str:
    if language == "zh":
        return f"已忘掉 #{record.id}：{record.content}（/undo 可以找回）"
    return f"Forgot memory #{record.id}: {record.content} (/undo brings it back)"


def _which(candidates: list[MemoryRecord], weak: bool) -> ToolError:
    """The question a forget asks instead of deleting, naming the candidates."""
    listing_en = "; ".join(f"#{m.id} {m.content}" for m in candidates)
    listing_zh = "；".join(f"#{m.id} {m.content}" for m in candidates)
    example = f"/forget #{candidates[0].id}"
    if weak:
        return ToolError(f"nothing forgotten yet: do you mean {listing_en}? Say {example} to forget it",
                         zh=f"还没有忘掉：是指 {listing_zh} 吗？要忘掉就说 {example}")
    return ToolError(f"several memories match, so nothing is forgotten yet: {listing_en}. Which one? "
                     f"Say its number, e.g. {example}",
                     zh=f"有几条记忆都对得上，还没有忘掉：{listing_zh}。是哪一条？说编号就行，比如 {example}")


def _overview(known: list[MemoryRecord], language: str) -> str:
    """What the pet knows about the person, pinned ones marked, in the message's language."""
    lines = "\n".join(f"{'📌 ' if m.pinned else ''}#{m.id}: {m.content}" for m in known)
    if language == "zh":
        return f"我记得的关于你的事（{len(known)}条，置顶的在前）：\n{lines}" if known else "我还不知道关于你的事。"
    if not known:
        return "I don't know anything about you yet."
    count = "1 memory" if len(known) == 1 else f"{len(known)} memories"
    return f"What I know about you ({count}, pinned first):\n{lines}"


def memory_tools(store: MemoryStoreLike) -> list[Tool]:
    def remember(content: str, ctx: ToolContext) -> str:
        """Save a fact about the person in long-term memory. Use it when they ask you to remember something.

        Args:
            content: the fact, short and in the person's words, e.g. "codes after 11pm"
        """
        content = memory_fact(content)
        if not content:
            raise ToolArgumentError("content is empty: say what to remember", zh="要记住什么呢？内容是空的。")
        if ctx.noted:  # the message's facts are kept already: a second wording would be a second memory
            kept = "; ".join(ctx.noted)
            return f"已经记下了：{kept}" if ctx.language == "zh" else f"Already noted from this message: {kept}"
        if len(content) > MAX_MEMORY_CHARS:
            raise ToolArgumentError(f"content is {len(content)} characters; keep a memory under {MAX_MEMORY_CHARS}",
                                    zh=f"内容有{len(content)}个字符，一条记忆请少于{MAX_MEMORY_CHARS}个字符。")
        asserted_by = who_asserted(content, ctx.person_words, ctx.tool_output)
        # Not the person's words while outside content is in view: the model may be
        # restating a note in its own words, so the person approves it first.
        pending = asserted_by == "tool" or (asserted_by == "model" and bool(ctx.tool_output))
        record, created = store.remember(
            ctx.pet_id, content, source_message_id=ctx.message_id, conversation_id=ctx.conversation_id,
            asserted_by=asserted_by, pending=pending,
        )
        if record.status == "pending":
            if ctx.language == "zh":
                return (f"#{record.id} 已存下，但在等主人确认：这不是主人亲口说的，而且当时看到了工具读来的内容。"
                        f"主人确认前不会用到它（记忆页或 /approve {record.id}）：{record.content}")
            return (f"Stored as memory #{record.id}, pending: it is not in the person's own words and a tool's "
                    f"output was in view, so it is not used until they approve it (Memory tab or "
                    f"/approve {record.id}): {record.content}")
        if ctx.language == "zh":
            return f"已记住 #{record.id}：{record.content}" if created else f"早就记着啦（#{record.id}，已更新）：{record.content}"
        if created:
            return f"Saved memory #{record.id}: {record.content}"
        return f"Already remembered as memory #{record.id}; updated it: {record.content}"

    def forget(what: str, ctx: ToolContext) -> str:
        """Forget one memory, by its id (like "#12") or by words that describe it.

        Args:
            what: the memory's id, or words from it
        """
        memory_id = read_id(what)
        if dismissal(ctx.message) is not None and (memory_id is None or str(memory_id) not in ctx.message):
            raise ToolError("nothing forgotten: \"forget it\" and \"never mind\" drop the subject, they do not "
                            "delete a memory; to delete one the person says /forget and its number",
                            zh="没有忘掉任何记忆：“算了”“别管了”只是不提这件事，不是删除记忆；要删除请说 /forget 加编号")
        if ctx.message and not _asked_to_delete(ctx):
            raise ToolError("nothing forgotten: the person did not ask to forget or delete anything",
                            zh="没有忘掉任何记忆：主人并没有说要忘掉或删除什么")
        if memory_id is None:
            memory_id = _chosen(what, ctx)
        record = store.forget(ctx.pet_id, memory_id)
        if record is None:
            raise ToolError(f"there is no memory #{memory_id}", zh=f"没有编号为 #{memory_id} 的记忆")
        return _forgot(record, ctx.language)

    def _chosen(what: str, ctx: ToolContext) -> int:
        """The one memory `what` describes; otherwise a question naming the candidates. One memory
        alone found that shares a word with `what` and is also the nearest in meaning is meant
        ("体重那条别存着了": "体重62公斤"), or one so found for the whole message when `what` finds
        none. Otherwise the person's loose words ("the gym one is outdated, bin it") describe the
        memory whose words they alone share most with; no word in common, the memories nearest in
        meaning are asked about. (/undo brings a forgotten one back.)"""
        what = _ENTRY.sub(" ", what).strip() or what  # "住址那条memory": the address
        found = store.search(ctx.pet_id, what, limit=5)
        meant = _agreed(what, found, ctx)
        if meant is None and not found and ctx.message:
            meant = _agreed(ctx.message, store.search(ctx.pet_id, ctx.message, limit=5), ctx)
        if meant is not None:
            return meant
        best = best_matches(what, [(m, m.content) for m in found])
        if not best:
            named = _named(ctx)
            if named is not None:
                return named
            near = store.guesses(ctx.pet_id, what, 2, floor=FORGET_GUESS_FLOOR)
            clear = _clearly_nearest(what, ctx) if near else None
            if clear is not None:
                return clear
            if near:
                raise _which(near, weak=True)
            raise ToolError(f"no memory matches {what!r}; /recall WORD finds one first",
                            zh=f"没有记忆对得上“{what}”；可以先用 /recall 关键词 找一找")
        if len(best) > 1:
            raise _which(best, weak=False)
        # the words of deleting ("bin it", "别存着了") say what to do, not which memory
        terms = [term for term in query_terms(what, limit=64) if not asks_deleting(term)]
        share = _share(terms, best[0].content) if terms else 1.0
        if share < STRONG_MATCH and not (share > LOOSE_MATCH and _alone(best[0], found, terms)
                                         and store.fits(ctx.pet_id, what, [best[0].id]).get(best[0].id, 1.0) >= AGREED_FIT):
            if _named(ctx) == best[0].id or _clearly_nearest(what, ctx) == best[0].id:
                return best[0].id
            raise _which(best, weak=True)
        return best[0].id

    def _clearly_nearest(what: str, ctx: ToolContext) -> int | None:
        """The memory nearest in meaning to the description, when it is near (CLEAR_NEAR) and nearer than
        any other by far (CLEAR_LEAD), and the description names nobody else than the memory is about:
        loose words that share no term with it still point at it ("sold my motorbike last week so u can
        drop the bike stuff": "rides a red Honda motorbike"; "im not vegetarian anymore lol, delete that
        note": "is vegetarian"), where asking "do you mean #1?" only makes the person say it again. (/undo
        brings it back.)"""
        from pet.agent.capture import about  # the agent's reading of whom a sentence is about

        alike = store.alike(ctx.pet_id, what, 2)
        if not alike:
            return None
        record, cosine, _ = alike[0]
        second = alike[1][1] if len(alike) > 1 else 0.0
        if cosine < CLEAR_NEAR or cosine - second < CLEAR_LEAD:
            return None
        whom = about(what, ctx.message)
        return record.id if not whom or whom == about(record.content) else None

    def _named(ctx: ToolContext) -> int | None:
        """The one memory the person's own words point at by a name, when the model's description
        of it is loose ("forget about him"): a word of the message that is a name in one memory
        and in no other, nor is another word of it ("lukas and i broke up. pls forget about him":
        "boyfriend is called Lukas"; "可乐去年走了……关于它的那条删了吧": "养了一只叫可乐的柯基").
        Only when the words that ask to delete point back at someone or something ("him", "它"), or
        hold the name themselves ("we broke up. delete anything about jess pls"): "I'm flying to Berlin
        next week, so forget the dentist thing" does not mean "my sister lives in Berlin", nor "forget
        the date of my sister's wedding" that fact (a sister is no name)."""
        if not ctx.message:
            return None
        asking = [part for part in _CLAUSE.split(ctx.message) if asks_deleting(part)]
        if any(_POINTING.search(part) for part in asking):
            words = ctx.message
        elif asking:  # the name in the words that ask: "we broke up. delete anything about jess pls"
            words = " ".join(asking)
        else:
            return None
        held: set[int] = set()
        terms = [term for term in query_terms(words, limit=64)
                 if len(term) >= 2 and not asks_deleting(term) and term not in _ENTRY_TERMS]
        named: list[str] = []
        for term in terms:
            found = {m.id for m in store.search(ctx.pet_id, term, limit=NAME_SEARCH) if _as_name(term, m.content)}
            named += [term] if found else []
            held |= found
            if len(held) > 1:
                return None
        if not held or words == ctx.message:
            return next(iter(held), None)
        # the words that ask say nothing else than the name, or what the memory says too: "delete anything about jess"
        # is Jess's memory, "forget the trip to Berlin" not "my sister lives in Berlin" (the review)
        record = next(m for m in store.search(ctx.pet_id, named[0], limit=NAME_SEARCH) if m.id in held)
        rest = [term for term in terms if term not in named and term not in _LOOSE_TERMS]
        return record.id if all(term in record.content.casefold() for term in rest) else None

    def _agreed(text: str, found: list[MemoryRecord], ctx: ToolContext) -> int | None:
        """The id of the one memory found for `text` that shares a word with it and is also the
        nearest in meaning, by AGREED_LEAD at least over the next nearest (with no other memory to
        compare, none is), and of the kind of fact `text` is about (AGREED_FIT: "my dog's birthday"
        is not "dog is named Pepper")."""
        if len(found) != 1:
            return None
        # a word of the description in the memory: "my address" alone does not say it is "lives at 14
        # Alder Lane" rather than a fact never told ("forget my wife's job": "works as a pharmacist")
        terms = [term for term in query_terms(text, limit=64) if not asks_deleting(term)]
        if not terms or not _share(terms, found[0].content):
            return None
        alike = store.alike(ctx.pet_id, text, 2)
        if len(alike) < 2 or alike[0][0].id != found[0].id:
            return None
        (_, cosine, fit), (_, second, _) = alike
        return found[0].id if cosine - second >= AGREED_LEAD and fit >= AGREED_FIT else None

    def recall(query: str, ctx: ToolContext) -> str:
        """Search long-term memory for what you know about a topic, or (query "me") about the person.

        Args:
            query: words to look for, e.g. "birthday" or "咖啡"; "me" lists what you know about the person
        """
        if about_the_person(query):
            return _overview(store.overview(ctx.pet_id, limit=OVERVIEW_LIMIT), ctx.language)
        found = store.search(ctx.pet_id, query, limit=RECALL_LIMIT)
        # what is close in meaning though no word matched ("hair?" and "Shaved my head"), as guesses
        guesses = store.guesses(ctx.pet_id, query, min(GUESSES, RECALL_LIMIT - len(found)),
                                leave_out=[m.id for m in found])
        return _recalled(query, found, guesses, ctx.language)

    return [
        Tool.from_function(remember, side_effect=True, reads_outside=False, claim="remember",
                           label=Label(en=("remembering", "remembered"), zh=("正在记住", "记住了"))),
        Tool.from_function(forget, side_effect=True, reads_outside=False, claim="forget",
                           label=Label(en=("forgetting", "forgot"), zh=("正在忘掉", "忘掉了"))),
        Tool.from_function(recall, reads_outside=False,
                           label=Label(en=("recalling", "recalled"), zh=("正在翻记忆", "翻了翻记忆"))),
    ]
