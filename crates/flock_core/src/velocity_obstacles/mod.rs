//! Velocity obstacles, the collision-free step of integration: for agents whose
//! [`Perception::velocity_obstacles`](crate::Perception::velocity_obstacles) is on, the
//! velocity the rules ask for is replaced by the nearest one that keeps clear of every nearby
//! agent (optimal reciprocal collision avoidance, ORCA: van den Berg, Guy, Lin and Manocha
//! 2011, "Reciprocal n-body collision avoidance").
//!
//! Each neighbour's velocity obstacle (the relative velocities that bring the two within their
//! summed radii inside the collision horizon) becomes a half-plane (a half-space, in 3D) of
//! allowed velocities, the agent taking its share of the smallest change that leaves it. A
//! linear program finds the allowed velocity nearest the preferred one within the max speed;
//! where a dense crowd leaves none, the one that violates the half-planes least, which lets
//! bodies overlap a little.
//!
//! Two agents that avoid each other share each manoeuvre by their
//! [`avoidance_priority`](crate::Perception::avoidance_priority) ([`manoeuvre_share`]); an
//! agent avoids only those in its [`avoidance_mask`](crate::Perception::avoidance_mask)'s
//! layers. With equal shares and nothing more, ORCA leaves agents swapping places round a circle
//! (8 at 64 ticks a second are enough) standing in a ring where each blocks the next, for good.
//! So between equal priorities the shares are 0.8 and 0.2 by a fixed ranking
//! ([`yielding_share`]), a blocked agent steps to its right, and a tiny seeded nudge breaks
//! exact symmetry (see `VelocityInputs::goal`).
//!
//! The paper's guarantee holds only while every program is feasible and every neighbour does
//! its part; in a crowd neither is sure (a dense crowd leaves no allowed velocity, and a
//! neighbour that has ten others nearer does not see the agent at all), and each miss lets
//! bodies overlap. So for reciprocal agents the program allows for both ([`as_programmed`]):
//! it keeps bodies [`MARGIN`] of their summed radii further apart than they are, and each
//! agent takes twice its share of a manoeuvre, at most all of it. On the standard scenarios
//! (circle swaps of 100 and 1,000, two crossing streams of 500, a bottleneck of 200) this took
//! the most pairs overlapping at once from 57-629 to 0-11 and everyone still arrives, though
//! later at the door, and a dense crowd swapping places jams more (see the crowd scenarios in
//! BENCHMARKS.md). Where a choice still leaves two bodies overlapping at the tick's end, the
//! agents in contact choose again with contact bounds (the [`contacts`] rounds), which took
//! the deepest overlap in those scenarios from up to 0.19 of the radius to 0.001 at most.
//!
//! [`VelocityObstacles::Solid`](crate::VelocityObstacles::Solid) agents also get a contact
//! bound per neighbour near enough to touch within the tick, never relaxed ([`contact`]): each
//! closes at most its share of the gap between their bodies, which standing still always
//! meets, so bodies never end a tick overlapping, at the price of jams where crowds walk
//! through each other from opposite sides.
//!
//! Obstacles and walls stay outside this program (integration's hard boundary keeps agents out
//! of them, and the avoidance forces steer round them), except for one bound each: a velocity
//! that would carry an agent into an obstacle or a hard wall within the tick is bounded by the
//! gap to its surface, and the program solved again ([`MOST_SURFACES`] times at most), so that
//! the move is never cut short and slid along the surface, off the chosen course and perhaps
//! into a neighbour.

mod contacts;
mod context;
mod encounters;
mod giving_way;
mod headway;
mod kept;
mod linear;
pub(crate) mod planar;
mod program;
mod shares;
mod step;
pub(crate) mod volume;

#[cfg(test)]
pub(crate) use contacts::contact;
pub(crate) use context::{VelocityInputs, avoids_velocity_obstacles, keeps_nearest};
#[cfg(test)]
pub(crate) use encounters::{Encounter, EncounterColumns};
#[cfg(test)]
pub(crate) use shares::{as_programmed, manoeuvre_share, yielding_share};
pub(crate) use step::VelocityStep;
