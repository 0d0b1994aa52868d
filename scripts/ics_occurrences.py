#!/usr/bin/env python3
"""What a phone's calendar makes of an iCalendar feed: every occurrence between two dates.

Reads the feed on standard input, parses it with `icalendar` and expands every event (its
RRULEs, RDATEs and EXDATEs, in its time zone) with `recurring_ical_events`, as calendar apps do;
prints one JSON array of `[summary, start, status]`, `start` being "YYYY-MM-DD" for a day and
"YYYY-MM-DDTHH:MM" (local to the event's zone) for a time. Used by tests/it/calendar.rs.

Usage: ics_occurrences.py FROM TO   (dates, YYYY-MM-DD, both included)
"""

import datetime
import json
import sys

import icalendar
import recurring_ical_events


def main() -> None:
    start, end = (datetime.date.fromisoformat(arg) for arg in sys.argv[1:3])
    calendar = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
    found = []
    for event in recurring_ical_events.of(calendar).between(start, end + datetime.timedelta(days=1)):
        at = event.decoded("DTSTART")
        if isinstance(at, datetime.datetime):
            shown = at.strftime("%Y-%m-%dT%H:%M")
        else:
            shown = at.isoformat()
        found.append([str(event.get("SUMMARY")), shown, str(event.get("STATUS", ""))])
    found.sort(key=lambda row: (row[1], row[0]))
    json.dump(found, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
