//! The steering behaviours, one family per file, each with its formula and source, and the
//! blend that turns them into one agent's steering force.
//!
//! | file | behaviours |
//! |---|---|
//! | [`flocking`] | separation, alignment, cohesion (Reynolds 1987) |
//! | [`seek`] | seek and arrive, pursuit's lead, flee and evade (Reynolds 1999) |
//! | [`collisions`] | predicted collisions between agents and the sidestep (Reynolds 1999) |
//! | [`leader`] | leader following (Reynolds 1999) |
//! | [`standoff`] | backing off from enemies to a standoff distance (RTS squads) |
//! | [`wander`] | wander (Reynolds 1999) and angular noise (Vicsek et al. 1995) |
//! | [`boundary`] | walls and wrap-around |
//! | [`blending`] | the weighted sum and prioritised allocation (Reynolds 1999) |

pub(crate) mod blending;
pub(crate) mod boundary;
pub(crate) mod collisions;
pub(crate) mod flocking;
pub(crate) mod leader;
pub(crate) mod prediction;
pub(crate) mod response;
pub(crate) mod seek;
pub(crate) mod standoff;
pub(crate) mod steering;
pub(crate) mod wander;
