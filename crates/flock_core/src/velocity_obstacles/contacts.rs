//! Contact bounds, and the contact rounds that make reciprocal agents keep to them where it
//! counts.
//!
//! A reciprocal agent's program can leave it no collision-free velocity in a dense crowd, and
//! the least violating one may carry its body into a neighbour's by the end of the tick. So
//! once every agent has chosen, each reciprocal agent that may end the tick overlapping (its
//! body is within reach of a neighbour's, and its program was relaxed or some agents do not
//! avoid back) checks its choice against its neighbours'; where two would leave the bodies
//! overlapping, the agent
//! is in contact, and chooses again with a contact bound per neighbour ([`contact`]), never
//! relaxed: against one that chooses with contact bounds too (a solid agent, or another in
//! contact), it closes at most its share of the gap between their bodies; against any other,
//! at most the gap plus the speed at which the other moves away, by the velocity that one has
//! chosen, which no longer changes. Choosing again changes velocities, which may bring others
//! into contact: up to [`CONTACT_ROUNDS`] rounds, each checking the agents not yet in contact
//! and choosing again for all that are, each round's choices reading the last round's.
//!
//! Only the few agents that would overlap are bounded, so crowds flow as before, where bounding
//! every agent near a neighbour (as `Solid` does) jams them. In the benchmark's circle swap of
//! 1,000 agents, over five starts (four moved by up to a millimetre), the deepest overlap fell
//! from 0.05-0.10 of the radius to 0.001 at most, and everyone still arrived as soon (see the
//! crowd scenarios in BENCHMARKS.md).

use glam::Vec3;

use super::context::{Scratch, Tick, VelocityInputs};
use super::encounters::Encounter;
use crate::executor::for_each_chunk_mut;
use crate::maths::length;

/// The most contact rounds a tick runs.
pub(crate) const CONTACT_ROUNDS: usize = 3;

/// The step's choices by grid slot, and the contact rounds' buffers, kept between ticks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Choices {
    /// By grid slot: the velocity chosen.
    pub(crate) velocities: Vec<Vec3>,
    /// By grid slot: whether the agent may end the tick overlapping a neighbour, and so is
    /// checked (see [`VelocityInputs::chosen_velocity`]).
    pub(super) may_overlap: Vec<bool>,
    /// By grid slot: whether the agent is in contact, and chooses with contact bounds.
    in_contact: Vec<bool>,
    /// The slots of the agents that may overlap.
    candidates: Vec<usize>,
    /// By candidate: whether the agent comes into contact this round.
    touching: Vec<bool>,
    /// The slots of the agents in contact, in the order they came into it.
    contacting: Vec<usize>,
    /// By agent in contact: the velocity it chooses this round.
    rechosen: Vec<Vec3>,
}

/// A contact round's view of the choices so far.
pub(super) struct Round<'a> {
    /// By grid slot: the velocity chosen in the last round.
    velocities: &'a [Vec3],
    /// By grid slot: whether the agent chooses with contact bounds this round.
    pub(super) in_contact: &'a [bool],
}

impl Round<'_> {
    /// The contact bound against the neighbour of `e` in grid `slot`: by the agent's share of
    /// the gap where the neighbour is `bounded` too (it avoids the agent and chooses with
    /// contact bounds), else by the gap and the velocity the neighbour has chosen.
    #[inline]
    pub(super) fn contact(
        &self,
        e: &Encounter<Vec3>,
        slot: usize,
        bounded: bool,
        dt: f32,
        max_speed: f32,
    ) -> Option<(Vec3, f32)> {
        if bounded {
            contact(e, dt, max_speed)
        } else {
            let moving = Encounter {
                velocity: self.velocities[slot],
                share: 1.0,
                ..*e
            };
            contact(&moving, dt, max_speed)
        }
    }
}

/// The bound that keeps the agent from ending the next `dt` inside the neighbour of `e`:
/// `n . v <= bound`, with `n` the unit direction to the neighbour. Two agents that both avoid
/// each close at most their share of the gap between their bodies within the tick, whatever
/// they did before, so together they at most close it, and standing still always keeps to the
/// bound (unless they already overlap); an agent closes on one that does not avoid at most by
/// the gap plus the speed at which the other moves away. `None` where the bound cannot bind
/// within the max speed.
#[inline(always)]
pub(crate) fn contact(e: &Encounter<Vec3>, dt: f32, max_speed: f32) -> Option<(Vec3, f32)> {
    let n = -e.apart();
    let gap = length(e.offset) - e.radius;
    let bound = if e.share < 1.0 {
        e.share * gap / dt
    } else {
        gap / dt + n.dot(e.velocity)
    };
    (bound < max_speed).then_some((n, bound))
}

impl VelocityInputs<'_> {
    /// The contact rounds (see [`contacts`](self)): reciprocal agents whose chosen velocity
    /// would leave their body overlapping a neighbour's at the tick's end choose again with
    /// contact bounds, written into `choices.velocities`.
    pub(super) fn resolve_contacts(&self, tick: &Tick, choices: &mut Choices) {
        let Choices {
            velocities,
            may_overlap,
            in_contact,
            candidates,
            touching,
            contacting,
            rechosen,
        } = choices;
        candidates.clear();
        candidates.extend((0..may_overlap.len()).filter(|&slot| may_overlap[slot]));
        if candidates.is_empty() {
            return;
        }
        in_contact.clear();
        in_contact.resize(velocities.len(), false);
        contacting.clear();
        for _ in 0..CONTACT_ROUNDS {
            touching.clear();
            touching.resize(candidates.len(), false);
            for_each_chunk_mut(self.executor, touching, |first, chunk| {
                let mut scratch = Scratch::default();
                for (k, touches) in chunk.iter_mut().enumerate() {
                    let slot = candidates[first + k];
                    *touches = !in_contact[slot]
                        && self.overlaps_at_tick_end(slot, tick, velocities, &mut scratch);
                }
            });
            let before = contacting.len();
            let newly = candidates.iter().zip(&*touching).filter(|(_, t)| **t);
            contacting.extend(newly.map(|(&slot, _)| slot));
            if contacting.len() == before {
                break;
            }
            for &slot in &contacting[before..] {
                in_contact[slot] = true;
            }
            rechosen.clear();
            rechosen.resize(contacting.len(), Vec3::ZERO);
            let round = Round {
                velocities,
                in_contact,
            };
            for_each_chunk_mut(self.executor, rechosen, |first, chunk| {
                let mut scratch = Scratch::default();
                let slots = contacting[first..first + chunk.len()].iter().copied();
                self.choose_each(
                    slots,
                    tick,
                    Some(&round),
                    &mut scratch,
                    |k, (velocity, _)| {
                        chunk[k] = velocity;
                    },
                );
            });
            for (&slot, &velocity) in contacting.iter().zip(&*rechosen) {
                velocities[slot] = velocity;
            }
        }
    }

    /// Whether the agent in grid `slot` and one of the neighbours it avoids, moving at their
    /// `velocities` (by grid slot) for the tick, end it with their bodies overlapping.
    fn overlaps_at_tick_end(
        &self,
        slot: usize,
        tick: &Tick,
        velocities: &[Vec3],
        scratch: &mut Scratch,
    ) -> bool {
        let prepared = &self.params[self.index.gathered[slot].params as usize];
        self.nearest_neighbours(slot, prepared, tick.layered, scratch);
        let own = prepared.params.perception.collision_distance;
        let velocity = velocities[slot];
        scratch.near.iter().any(|near| {
            let theirs = &self.params[self.index.lanes.params(near.slot) as usize];
            let radius = 0.5 * (own + theirs.params.perception.collision_distance);
            let apart = near.offset + (velocities[near.slot] - velocity) * tick.dt;
            apart.length_squared() < radius * radius
        })
    }
}
