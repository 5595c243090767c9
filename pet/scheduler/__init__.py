"""Things the pet does unasked: reminders that fire, the morning brief.

- policy.py    when a due time is delivered: late, missed, held by quiet hours (pure)
- delivery.py  fires reminders into the inbox, idempotently (no APScheduler)
- core.py      PetScheduler: APScheduler 3, jobs in the pet's database; the only
               module importing apscheduler
- brief.py     the morning brief (agenda.py, todos.py, files.py read the workspace)

Nothing here starts on import; the app builds and starts the scheduler.
"""
