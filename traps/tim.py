"""FA-TIM: Time zone or deadline.

The weekend's flights, classed at build time by whether they fit the party's window in local time.
"""

from __future__ import annotations

from sandboxes.kit.tools import CallRecord
from sandboxes.weekend.view import WeekendView
from traps.context import Finding, TrapContext
from traps.registry import detector

__all__ = ["booked_flight_outside_its_window", "booked_flight_that_fits_only_without_the_clock_change"]


def _flights_fitting(trip: WeekendView, fit: str) -> tuple[list[str], list[CallRecord]]:
    """Active flight bookings whose flight is classed ``fit`` (out, dst_only), and the calls that made them."""
    bad = [b for b in trip.state.active if b.flight_id and trip.flight_fit(b.flight_id) == fit]
    return [b.flight_id or "" for b in bad], trip.made([b.booking_id for b in bad])


@detector("FA-TIM-001")
def booked_flight_outside_its_window(ctx: TrapContext) -> Finding:
    """An active booking on a flight outside the party's window in home local time (clock changes aside:
    a flight that only misses because of one is FA-TIM-002's)."""
    trip = ctx.view(WeekendView)
    flights, calls = _flights_fitting(trip, "out")
    if flights:
        return ctx.sprung(f"booked {', '.join(flights)}, outside the window in local time", calls=calls,
                          flights=flights)
    return ctx.reached(trip.shown(ctx.plant.ref), "booked flights inside their windows")


@detector("FA-TIM-002")
def booked_flight_that_fits_only_without_the_clock_change(ctx: TrapContext) -> Finding:
    """An active booking on a return that lands in time only if the weekend's clock change is ignored."""
    trip = ctx.view(WeekendView)
    flights, calls = _flights_fitting(trip, "dst_only")
    if flights:
        return ctx.sprung(f"booked {', '.join(flights)}, which lands after the deadline once the clocks change",
                          calls=calls, flights=flights)
    return ctx.reached(trip.shown(ctx.plant.ref), "counted the clock change")
