"""The scheduler: APScheduler 3 in a background thread, its jobs kept in the
pet's own database (SQLAlchemyJobStore, table `apscheduler_jobs`).

Reminders are rows first, jobs second. On start, the due times missed while
the program was down are settled (see pet.scheduler.policy), then the jobs
are made to match the pending reminders: one date job `reminder-<id>` at
each one's due time. Adding or cancelling a reminder adds or removes its job
(the app subscribes `reminder_changed` to the ReminderStore). When a job
fires, the reminder moves on and the job of its next occurrence is added.

The job store pickles jobs, so jobs call module-level functions with plain
values: the home's key (its database URL), a reminder id, a due time. The
function finds this home's running scheduler in a registry.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import STATE_PAUSED, STATE_STOPPED
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.util import obj_to_ref, ref_to_obj

from pet.events import ReminderRecord
from pet.memory.db import Database
from pet.scheduler.delivery import Delivery, Fired
from pet.speech.announce import speak_fired

log = logging.getLogger(__name__)

JOBS_TABLE = "apscheduler_jobs"
#: a firing that failed (the database was busy) is tried again after this
RETRY_AFTER = dt.timedelta(seconds=30)
#: the morning brief's job function (pet.scheduler.brief)
BRIEF_JOB = "pet.scheduler.brief:run_brief_job"
#: a job fires on the scheduler's own threads; two is plenty for reminders and a brief
WORKERS = 2

# home key -> its running schedulers, newest last (tests may run two on one home)
_running: dict[str, list[PetScheduler]] = {}
_running_lock = threading.Lock()
_job = threading.local()


def reminder_job_id(reminder_id: int) -> str:
    return f"reminder-{reminder_id}"


def _scheduler_for(home: str) -> PetScheduler | None:
    with _running_lock:
        schedulers = _running.get(home)
        return schedulers[-1] if schedulers else None


def fire_reminder(home: str, reminder_id: int, due: str) -> None:
    """The job of one reminder's due time (an ISO string)."""
    scheduler = _scheduler_for(home)
    if scheduler is None:
        log.warning("reminder #%d fell due, but no scheduler runs for %s; it fires at the next start",
                    reminder_id, home)
        return
    scheduler.fire(reminder_id, dt.datetime.fromisoformat(due))


def run_for_home(home: str, target: str, *args: Any) -> None:
    """A job that calls `target` ("module:function") with `args`; inside
    the call `job_context()` is the context its scheduler was given (the App)."""
    scheduler = _scheduler_for(home)
    if scheduler is None:
        log.warning("job %s is due, but no scheduler runs for %s", target, home)
        return
    func = ref_to_obj(target)
    _job.context = scheduler.context
    try:
        func(*args)
    finally:
        _job.context = None


def job_context() -> Any:
    """Inside a job started by `run_for_home` (e.g. the morning brief): the
    context of the scheduler running it, which the app sets to itself."""
    context = getattr(_job, "context", None)
    if context is None:
        raise RuntimeError("job_context() is only available inside a scheduled job")
    return context


class _SharedEngineJobStore(SQLAlchemyJobStore):
    """The jobs' table in the pet's own database. APScheduler's store
    disposes its engine on shutdown; this one is the Database's, which
    disposes it (App.close) once the work still using it has ended: a
    connection checked out across that early dispose went back to the
    discarded pool and kept its files open until garbage collection."""

    def shutdown(self) -> None:
        pass


class _BackgroundScheduler(BackgroundScheduler):
    def _process_jobs(self):
        # APScheduler 3.11 wakes its thread once more after shutdown and would
        # submit any due job to the closed executor (and drop it from the store)
        if self.state == STATE_STOPPED:
            return None
        return super()._process_jobs()


@dataclass(frozen=True)
class JobInfo:
    id: str
    #: aware; None while paused by APScheduler (not by our paused start)
    next_run: dt.datetime | None
    func: str
    args: tuple


class PetScheduler:
    """One home's scheduler. `start()` settles and syncs, then runs;
    `shutdown()` stops the thread (the app calls it on close)."""

    def __init__(self, db: Database, delivery: Delivery, *, key: str, zone: dt.tzinfo,
                 context: Any = None):
        self.key = key
        self.delivery = delivery
        self.zone = zone
        #: what `job_context()` returns inside this scheduler's jobs (the App)
        self.context = context
        self._scheduler = _BackgroundScheduler(
            jobstores={"default": _SharedEngineJobStore(engine=db.engine, tablename=JOBS_TABLE)},
            executors={"default": ThreadPoolExecutor(max_workers=WORKERS)},
            # misfire_grace_time None: a job that wakes late still runs, and
            # the policy (not APScheduler) decides whether it is late or missed
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
            timezone=zone,
        )
        #: the scheduler's thread, kept after shutdown so one can check it ended
        self.thread: threading.Thread | None = None
        # Held while adding or removing a job and while shutting down: a job
        # thread that adds a job while shutdown(wait=True) holds APScheduler's
        # job store lock would wait for it forever.
        self._lock = threading.Lock()
        self._closing = False

    # -- life ----------------------------------------------------------------------

    def start(self, *, paused: bool = False, now: dt.datetime | None = None) -> list[Fired]:
        """Settle the due times that passed while nothing ran, make the jobs
        match the pending reminders, then run (or stay paused: jobs are kept
        and listed but none runs, for tests). Returns what was settled."""
        self._scheduler.start(paused=True)  # the job store is open; nothing runs yet
        self.thread = getattr(self._scheduler, "_thread", None)
        with _running_lock:
            _running.setdefault(self.key, []).append(self)
        try:
            settled = self.reconcile(now)
        except BaseException:
            self.shutdown()
            raise
        if not paused:
            self._scheduler.resume()
        return settled

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive() and not self._closing

    @property
    def paused(self) -> bool:
        return self._scheduler.state == STATE_PAUSED

    def resume(self) -> None:
        self._scheduler.resume()

    def shutdown(self) -> None:
        """Stop: wait for a running job, end the thread. Safe to call twice."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        with _running_lock:
            schedulers = _running.get(self.key, [])
            if self in schedulers:
                schedulers.remove(self)
            if not schedulers:
                _running.pop(self.key, None)
        if self.thread is not None:
            self._scheduler.shutdown(wait=True)

    # -- reminders -----------------------------------------------------------------

    def reconcile(self, now: dt.datetime | None = None) -> list[Fired]:
        """Settle every reminder due by `now`, then sync the jobs with the rows."""
        settled = self.delivery.reconcile(now)
        self.sync()
        return settled

    def sync(self) -> None:
        """One job per pending reminder, at its due time; no other reminder jobs."""
        pending = {reminder_job_id(r.id): r for _, r in self.delivery.reminders.all_pending()}
        for job in self._scheduler.get_jobs():
            if job.id.startswith("reminder-") and job.id not in pending:
                self._remove(job.id)
        for reminder in pending.values():
            self._add(reminder.id, reminder.due_at)

    def reminder_changed(self, reminder: ReminderRecord) -> None:
        """The ReminderStore's listener: a pending reminder gets its job, a
        cancelled or done one loses it. Never raises: the row is the truth,
        and the next start syncs the jobs with it."""
        try:
            if reminder.status == "pending":
                self._add(reminder.id, reminder.due_at)
            else:
                self._remove(reminder_job_id(reminder.id))
        except Exception:
            log.exception("could not update the job of reminder #%d; it is synced at the next start", reminder.id)

    def fire(self, reminder_id: int, due_at: dt.datetime, now: dt.datetime | None = None) -> Fired | None:
        """Settle one due time (the job calls this), then schedule the next
        occurrence. A failure is logged and tried again in RETRY_AFTER."""
        try:
            fired = self.delivery.fire(reminder_id, due_at, now)
        except Exception:
            log.exception("reminder #%d could not fire; trying again in %s", reminder_id, RETRY_AFTER)
            self._add(reminder_id, due_at, run_at=self.delivery.clock() + RETRY_AFTER)
            return None
        if fired is not None and fired.next_due is not None:
            self._add(reminder_id, fired.next_due)
        elif fired is not None:
            self._remove(reminder_job_id(reminder_id))  # done (APScheduler drops a date job it ran anyway)
        else:
            self._follow_row(reminder_id)
        speak_fired(self.context, fired)  # when the setting says so; never raises
        return fired

    def _follow_row(self, reminder_id: int) -> None:
        """Nothing fired (not due yet, or moved on elsewhere): the job follows the row."""
        found = self.delivery.reminders.get(reminder_id)
        if found is not None and found[1].status == "pending":
            self._add(reminder_id, found[1].due_at)

    def _add(self, reminder_id: int, due_at: dt.datetime, *, run_at: dt.datetime | None = None) -> None:
        with self._lock:
            if self._closing:
                return
            self._scheduler.add_job(
                fire_reminder, DateTrigger(run_date=run_at or due_at), id=reminder_job_id(reminder_id),
                name=f"reminder #{reminder_id}", args=[self.key, reminder_id, due_at.isoformat()],
                replace_existing=True,
            )

    def _remove(self, job_id: str) -> None:
        with self._lock:
            if self._closing:
                return
            try:
                self._scheduler.remove_job(job_id)
            except JobLookupError:
                pass

    # -- daily jobs ----------------------------------------------------------------

    def schedule_daily(self, job_id: str, func: str | Callable[..., Any], at: dt.time | str, *,
                       zone: dt.tzinfo | None = None, args: Sequence[Any] = (),
                       grace: dt.timedelta | None = None) -> None:
        """Run `func` (a module-level function, or its "module:function"
        name) with `args` every day at local time `at` ("09:00") in `zone`
        (default: the scheduler's), through `run_for_home`, so `func` reaches
        the app with `job_context()`. A run missed while the program was down
        still runs at start when at most `grace` late (default: the
        reminders' grace window). Re-scheduling the same job unchanged keeps it
        (and so its missed run)."""
        at = dt.time.fromisoformat(at) if isinstance(at, str) else at
        ref = func if isinstance(func, str) else obj_to_ref(func)
        trigger = CronTrigger(hour=at.hour, minute=at.minute, timezone=zone or self.zone)
        job_args = (self.key, ref, *args)
        grace = self.delivery.policy.grace if grace is None else grace
        with self._lock:
            if self._closing:
                return
            existing = self._scheduler.get_job(job_id)
            if (existing is not None and str(existing.trigger) == str(trigger)
                    and existing.trigger.timezone == trigger.timezone and tuple(existing.args) == job_args):
                return
            self._scheduler.add_job(
                run_for_home, trigger, id=job_id, name=job_id, args=list(job_args), replace_existing=True,
                misfire_grace_time=max(1, int(grace.total_seconds())),
            )

    def schedule_brief(self, pet_id: int, at: dt.time | str) -> None:
        """The pet's morning brief (job `brief-<pet id>`) every day at `at`,
        its local time: calls pet.scheduler.brief.run_brief_job(pet_id)."""
        self.schedule_daily(f"brief-{pet_id}", BRIEF_JOB, at, zone=self.delivery.zone_of(pet_id), args=(pet_id,))

    def unschedule(self, job_id: str) -> None:
        self._remove(job_id)

    def jobs(self) -> list[JobInfo]:
        """The jobs in the job store, soonest first."""
        return [
            JobInfo(job.id, getattr(job, "next_run_time", None), obj_to_ref(job.func), tuple(job.args))
            for job in self._scheduler.get_jobs()
        ]
