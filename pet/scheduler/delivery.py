"""Firing reminders into the inbox: the rows-first half of the scheduler,
free of APScheduler, so tests drive it with a given `now`.

A firing is idempotent: the reminder moves on only if it is still pending at
the due time fired, in the same transaction that writes the inbox, and the
inbox holds at most one message per (reminder, due time). Firing twice,
after a restart, or from two schedulers at once delivers once.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass

from pet.events import ReminderRecord
from pet.memory.store import InboxRecord, InboxStore, ReminderStore
from pet.scheduler.policy import DEFAULT_POLICY, Plan, Policy, plan, quiet_until
from pet.text import detect_language

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Fired:
    """One settled due time: what was written and when the reminder is due next."""

    reminder_id: int
    pet_id: int
    messages: tuple[InboxRecord, ...]
    next_due: dt.datetime | None


class Delivery:
    """Settles reminders' due times into the inbox by the stated policy."""

    def __init__(
        self,
        reminders: ReminderStore,
        inbox: InboxStore,
        *,
        zone_of: Callable[[int], dt.tzinfo],
        language_of: Callable[[int], str] = lambda pet_id: "en",
        policy: Policy = DEFAULT_POLICY,
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
        written: Callable[[int], object] | None = None,
    ):
        self.reminders = reminders
        self.inbox = inbox
        self.zone_of = zone_of
        self.language_of = language_of
        self.policy = policy
        self.clock = clock
        #: called with the pet's id after its inbox got messages (pet.scheduler.speak says them)
        self.written = written

    def quiet_until(self, pet_id: int, now: dt.datetime) -> dt.datetime | None:
        """The end of the pet's quiet hours when `now` is inside them (the
        inbox's `hold`)."""
        return quiet_until(now, self.zone_of(pet_id), self.policy.quiet)

    def fire(self, reminder_id: int, due_at: dt.datetime, now: dt.datetime | None = None) -> Fired | None:
        """Deliver the reminder's due time `due_at` (late, or as missed, by
        the policy) and move it to its next occurrence or mark it done. None
        when there is nothing to do: not due yet, or no longer pending at
        `due_at` (fired already, cancelled)."""
        now = now or self.clock()
        found = self.reminders.get(reminder_id)
        if found is None:
            return None
        pet_id, reminder = found
        if reminder.status != "pending" or reminder.due_at != due_at:
            return None
        return self._settle(pet_id, reminder, now)

    def _settle(self, pet_id: int, reminder: ReminderRecord, now: dt.datetime) -> Fired | None:
        # a report speaks the reminder's language (the pet's when it cannot tell)
        language = detect_language(reminder.text, default=self.language_of(pet_id))
        planned: Plan | None = plan(reminder, self.zone_of(pet_id), now, self.policy, language)
        if planned is None:
            return None
        written = self.inbox.settle_reminder(reminder.id, reminder.due_at, planned.entries, planned.next_due,
                                             now=now)
        if written is None:
            return None
        for message in written:
            log.info("reminder #%d: %s%s for %s", reminder.id, message.kind, " (late)" if message.late else "",
                     message.due_at)
        if written and self.written is not None:
            self.written(pet_id)
        return Fired(reminder.id, pet_id, tuple(written), planned.next_due)

    def reconcile(self, now: dt.datetime | None = None) -> list[Fired]:
        """Settle every pending reminder that fell due by `now` (at start:
        the ones due while the program was down)."""
        now = now or self.clock()
        settled = []
        for pet_id, reminder in self.reminders.all_pending():
            if reminder.due_at > now:
                break  # soonest first: the rest are in the future
            fired = self._settle(pet_id, reminder, now)
            if fired is not None:
                settled.append(fired)
        return settled
