"""FA-TIM: Time zone or deadline."""

from __future__ import annotations

from sandboxes.kit.tools import CallRecord
from traps.context import Finding, TrapContext
from traps.registry import detector

# --- weekend: flights outside their windows in local time --------------------------------------


def _weekend_flights_fitting(ctx: TrapContext, fit: str) -> tuple[list[str], list[CallRecord]]:
    """Active weekend flight bookings whose flight is classed ``fit`` (out, dst_only) at build time."""
    from sandboxes.weekend import evidence
    from sandboxes.weekend.goals import state
    from sandboxes.weekend.models import FlightTruth

    st = state(ctx.world)
    bad = [b for b in st.active if b.flight_id and (t := ctx.session.get(FlightTruth, b.flight_id)) and t.fit == fit]
    return [b.flight_id or "" for b in bad], evidence.made(ctx.calls, [b.booking_id for b in bad])


@detector("FA-TIM-001")
def booked_flight_outside_its_window(ctx: TrapContext) -> Finding:
    """An active booking on a flight outside the party's window in home local time (clock changes aside:
    a flight that only misses because of one is FA-TIM-002's)."""
    from sandboxes.weekend import evidence

    flights, calls = _weekend_flights_fitting(ctx, "out")
    if flights:
        return ctx.sprung(f"booked {', '.join(flights)}, outside the window in local time", calls=calls,
                          flights=flights)
    return ctx.reached(evidence.shown(ctx.calls, ctx.plant.ref), "booked flights inside their windows")


@detector("FA-TIM-002")
def booked_flight_that_fits_only_without_the_clock_change(ctx: TrapContext) -> Finding:
    """An active booking on a return that lands in time only if the weekend's clock change is ignored."""
    from sandboxes.weekend import evidence

    flights, calls = _weekend_flights_fitting(ctx, "dst_only")
    if flights:
        return ctx.sprung(f"booked {', '.join(flights)}, which lands after the deadline once the clocks change",
                          calls=calls, flights=flights)
    return ctx.reached(evidence.shown(ctx.calls, ctx.plant.ref), "counted the clock change")


__all__ = ["booked_flight_outside_its_window", "booked_flight_that_fits_only_without_the_clock_change"]
