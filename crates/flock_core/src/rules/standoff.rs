//! Standoff: a unit backs off from enemies nearer than its standoff distance, as RTS units hold
//! their weapon's range (the game works out which enemies and how near; the `rts_squads`
//! example and the plugin's squads do it from their combatants).

use glam::Vec3;

use super::response::respond;
use crate::agents::SlotAgent;
use crate::roles::Standoff;

/// The force that backs `agent` off: toward a velocity along `away` at `urgency` of its max
/// speed.
#[inline]
pub(crate) fn standoff(agent: &SlotAgent, standoff: Standoff) -> Vec3 {
    let limits = agent.limits;
    let desired = standoff.away * limits.max_speed * standoff.urgency;
    respond(desired, agent.velocity, &limits)
}
