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
pub(crate) mod planar;
pub(crate) mod volume;

use core::ops::Range;

use glam::{IVec3, Vec3};

use crate::executor::{ChunkExecutor, for_each_chunk_mut, for_each_chunk_mut2};
use crate::forces::ForcePass;
use crate::maths::{length, limit_length, unit};
use crate::neighbours::nearest::{MOST_AGENTS_AVOIDED, NearestKeys};
use crate::neighbours::{Images, NeighbourIndex, image_ranges, seam_images};
#[cfg(test)]
use crate::obstacles::ObstacleSet;
use crate::obstacles::{Layered, ObstacleQuery};
use crate::rules::flocking::coincident_direction;
use crate::rules::wander::NoiseDraw;
use crate::simd::{WIDTH, Wide};
use crate::space::Space;
use crate::tuning::{Boundary, Perception, Prepared, VelocityObstacles};

use contacts::Round;
pub(crate) use contacts::{Choices, contact};

/// How much further apart than their summed radii the program keeps two bodies, as a share of
/// those radii: room for what an infeasible program or a neighbour that does not reciprocate
/// gives away. (The contact bounds of `Solid` agents keep to the bodies themselves.)
const MARGIN: f32 = 0.05;
/// How many times its share of a manoeuvre an agent takes in the program (at most all of it),
/// in case its neighbour does not take its own.
const SHARE_TAKEN: f32 = 2.0;

/// The most obstacle surfaces or walls a velocity is bounded by: a corner's three.
const MOST_SURFACES: usize = 3;
/// The largest nudge of the velocity an agent aims for, per axis, as a share of its max speed.
const NUDGE: f32 = 1e-3;
/// An agent moving along its preferred velocity at under this share of its speed is blocked.
const BLOCKED: f32 = 0.5;
/// A blocked agent aims this many times its preferred speed to the right of it, besides the
/// preferred velocity (45 degrees to the right).
const STEP_ASIDE: f32 = 1.0;
/// How far from a half the shares of two agents that both avoid are moved (see
/// [`yielding_share`]).
const YIELD: f32 = 0.3;

/// Keeps the nudges' draws apart from the other seeded draws.
const NUDGE_STREAM: u64 = 0x4F52_4341_0000_0001;

/// Below this, a determinant or squared length counts as zero: the lines or planes are parallel.
pub(super) const PARALLEL: f32 = 1e-5;

/// One neighbour as its velocity obstacle sees it, relative to the agent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Encounter<V> {
    /// The neighbour's position minus the agent's.
    pub(crate) offset: V,
    /// The neighbour's velocity.
    pub(crate) velocity: V,
    /// The two bodies' radii summed: closer than this, their centres collide.
    pub(crate) radius: f32,
    /// Seconds ahead that the agent keeps clear of the neighbour.
    pub(crate) horizon: f32,
    /// The share of the manoeuvre the agent takes: by [`manoeuvre_share`] when the neighbour
    /// avoids it too, all of it when the neighbour keeps its velocity.
    pub(crate) share: f32,
    /// The unit direction from the neighbour to the agent where the offset's squared length
    /// is not a normal number (see [`Encounter::apart`]): `-offset` scaled to unit length
    /// where it can be, fixed per pair where they coincide. Zero, and never read, elsewhere.
    pub(crate) fixed_apart: Vec3,
}

/// Encounters as the half-spaces read them, eight lanes at a time: a column per field, and
/// beside each encounter the velocity of the agent it belongs to (so that the encounters of
/// several agents are computed together, see [`volume::half_spaces`]). Written field by field
/// as they are built, they need no reshuffle into lanes. Room for a batch's.
#[derive(Clone, Debug)]
pub(crate) struct EncounterColumns {
    len: usize,
    /// By [`Field`]; the lanes of the last group past `len` zeros after
    /// [`pad`](Self::pad).
    columns: [[f32; ENCOUNTERS]; FIELDS],
}

/// The most encounters an [`EncounterColumns`] holds: a batch's, in whole groups of lanes.
const ENCOUNTERS: usize = (BATCH * MOST_AGENTS_AVOIDED).next_multiple_of(WIDTH);

impl Default for EncounterColumns {
    fn default() -> Self {
        Self {
            len: 0,
            columns: [[0.0; ENCOUNTERS]; FIELDS],
        }
    }
}

/// The columns of an [`EncounterColumns`].
#[derive(Clone, Copy)]
pub(crate) enum Field {
    OffsetX,
    OffsetY,
    OffsetZ,
    VelocityX,
    VelocityY,
    VelocityZ,
    Radius,
    Horizon,
    Share,
    FixedApartX,
    FixedApartY,
    FixedApartZ,
    MoverX,
    MoverY,
    MoverZ,
}

/// How many fields an [`EncounterColumns`] holds.
const FIELDS: usize = 15;

impl EncounterColumns {
    /// Empty.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// How many encounters it holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds `e`, met by an agent moving at `mover`. There must be room (see [`ENCOUNTERS`]).
    #[inline(always)]
    pub(crate) fn push(&mut self, e: &Encounter<Vec3>, mover: Vec3) {
        let fields = [
            e.offset.x,
            e.offset.y,
            e.offset.z,
            e.velocity.x,
            e.velocity.y,
            e.velocity.z,
            e.radius,
            e.horizon,
            e.share,
            e.fixed_apart.x,
            e.fixed_apart.y,
            e.fixed_apart.z,
            mover.x,
            mover.y,
            mover.z,
        ];
        // The place in a local: the stores could otherwise overwrite `len`, for all the
        // compiler knows, which it would then read and check again before each.
        let at = self.len;
        for (column, value) in self.columns.iter_mut().zip(fields) {
            column[at] = value;
        }
        self.len = at + 1;
    }

    /// Zeros the lanes of the last group past the end, so that they hold no values from
    /// encounters before (whose results are never read, but could be slow to compute).
    pub(crate) fn pad(&mut self) {
        let padded = self.len.next_multiple_of(WIDTH);
        for column in &mut self.columns {
            column[self.len..padded].fill(0.0);
        }
    }

    /// Encounters `at..at + 8` of column `field`.
    #[inline(always)]
    pub(crate) fn lanes<V: Wide>(&self, field: Field, at: usize) -> V {
        V::load(&self.columns[field as usize], at)
    }

    /// Encounter `k`'s offset.
    #[inline]
    fn offset(&self, k: usize) -> Vec3 {
        let column = |field: Field| self.columns[field as usize][k];
        Vec3::new(
            column(Field::OffsetX),
            column(Field::OffsetY),
            column(Field::OffsetZ),
        )
    }

    /// Encounter `k`'s summed radii.
    #[inline]
    fn radius(&self, k: usize) -> f32 {
        self.columns[Field::Radius as usize][k]
    }
}

/// Where each lane of `length_sq`, a squared length, is a normal number (as
/// [`Encounter::apart`] asks), and there the reciprocal of the length, as glam normalises.
#[inline(always)]
pub(super) fn recip_length_where_normal<V: Wide>(length_sq: V) -> (V::Mask, V) {
    let normal =
        length_sq.cmpge(V::splat(f32::MIN_POSITIVE)) & length_sq.cmplt(V::splat(f32::INFINITY));
    (normal, V::splat(1.0) / length_sq.sqrt())
}

impl Encounter<Vec3> {
    /// The unit direction from the neighbour to the agent: `-offset` times the reciprocal of
    /// its length where its squared length is a normal number (as glam normalises; the
    /// half-spaces compute this on lanes, and the build of an encounter skips it), else
    /// [`fixed_apart`](Self::fixed_apart).
    #[inline]
    pub(crate) fn apart(&self) -> Vec3 {
        if self.offset.length_squared().is_normal() {
            (-self.offset).normalize()
        } else {
            self.fixed_apart
        }
    }
}

/// The buffers of the velocity-obstacle step, kept between ticks.
#[derive(Clone, Debug, Default)]
pub(crate) struct VelocityStep {
    /// By agent index: the velocity the rules and limits ask for.
    pub(crate) preferred: Vec<Vec3>,
    /// By grid slot: the velocity chosen, and what the contact rounds need.
    pub(crate) choices: Choices,
    /// By agent index: the squared distance within which the next force pass offers the
    /// agent's neighbours to its nearest (see [`VelocityInputs::nearest_ceilings`]), where the last
    /// tick kept them; infinite, or missing, elsewhere.
    pub(crate) ceilings: Vec<f32>,
}

/// A neighbour kept among the nearest.
#[derive(Clone, Copy, Debug)]
struct Near {
    /// The neighbour's grid slot.
    slot: usize,
    /// The neighbour's position minus the agent's (on the plane, for planar crowds).
    offset: Vec3,
}

/// What every agent's choice in one tick shares.
struct Tick<'a> {
    dt: f32,
    /// Whether some agents do not avoid every other ([`avoids_by_layers`]).
    layered: bool,
    obstacles: &'a Layered<'a>,
    /// The highest max speed of any agent: bodies further apart than the reach of their two
    /// speeds within the tick cannot touch by its end.
    fastest: f32,
    /// Whether every agent avoids every other with velocity obstacles, so that of two whose
    /// programs both hold, neither ends the tick inside the other.
    all_avoid: bool,
}

/// How many agents the step takes at once: their encounters' half-spaces are computed
/// together (see [`volume::half_spaces`]), which with ten neighbours each fills five groups of
/// lanes where one agent at a time filled eight, half of them with two lanes of eight.
const BATCH: usize = 4;

/// Scratch space a chunk of the step reuses from batch to batch.
#[derive(Default)]
struct Scratch {
    /// The cell whose stencil `stencil` holds: agents of a cell sit in consecutive slots.
    stencil_cell: Option<IVec3>,
    stencil: Vec<Range<usize>>,
    seam_stencil: Vec<Range<usize>>,
    near: Vec<Near>,
    /// The batch's agents that wait for their program.
    pending: Vec<Pending>,
    /// The batch's encounters, each agent's in a run; [`as_programmed`] for reciprocal agents.
    encounters: EncounterColumns,
    /// The batch's bounds `n . v <= bound` never relaxed (contacts), each agent's in a run.
    bounds: Vec<(Vec3, f32)>,
    /// By encounter: its half-plane (on the plane) or half-space.
    lines: Vec<planar::HalfPlane>,
    spaces: Vec<volume::HalfSpace>,
    /// One agent's program where it has bounds: those first, then its encounters'.
    program_lines: Vec<planar::HalfPlane>,
    program_spaces: Vec<volume::HalfSpace>,
    projected_lines: Vec<planar::HalfPlane>,
    projected_spaces: Vec<volume::HalfSpace>,
}

/// An agent of a batch whose encounters are built, waiting for their half-spaces.
struct Pending {
    /// Its place in the batch.
    at: usize,
    slot: usize,
    preferred: Vec3,
    /// The velocity it aims for (see [`VelocityInputs::goal`]).
    goal: Vec3,
    max_speed: f32,
    solid: bool,
    /// Its runs of the batch's encounters and bounds.
    encounters: Range<usize>,
    bounds: Range<usize>,
}

/// The crowd as the velocity-obstacle step reads it.
pub(crate) struct VelocityInputs<'a> {
    pub(crate) space: Space,
    pub(crate) params: &'a [Prepared],
    pub(crate) index: &'a NeighbourIndex,
    /// Seed and tick of the nudges' draws.
    pub(crate) seed: u64,
    pub(crate) tick: u64,
    /// The force pass, whose scan may have kept each agent's nearest neighbours.
    pub(crate) forces: &'a ForcePass,
    /// By agent index: the velocity the rules and limits ask for (see
    /// [`VelocityStep::preferred`]).
    pub(crate) preferred: &'a [Vec3],
    pub(crate) executor: &'a (dyn ChunkExecutor + Send + Sync),
}

/// Whether any parameter set avoids velocity obstacles.
pub(crate) fn avoids_velocity_obstacles(params: &[Prepared]) -> bool {
    params
        .iter()
        .any(|p| p.velocity_obstacles != VelocityObstacles::Off)
}

/// Whether some agents do not avoid every other by their avoidance layers: with every agent in
/// a layer and every mask full, each avoids every other, and the step need not look up each
/// neighbour's layers.
fn avoids_by_layers(params: &[Prepared]) -> bool {
    params.iter().any(|p| {
        let p = &p.params.perception;
        p.avoidance_mask != u32::MAX || p.avoidance_layers == 0
    })
}

/// Whether the force pass keeps each agent's nearest neighbours for the step (see
/// [`Neighbourhood::scan_keeping_nearest`](crate::neighbours::Neighbourhood::scan_keeping_nearest)),
/// which saves the step a scan of its own: where some agents avoid velocity obstacles, and
/// every agent avoids every other.
pub(crate) fn keeps_nearest(params: &[Prepared]) -> bool {
    avoids_velocity_obstacles(params) && !avoids_by_layers(params)
}

impl VelocityInputs<'_> {
    /// The number of agents.
    fn len(&self) -> usize {
        self.index.gathered.len()
    }

    /// The highest max speed of any agent.
    fn fastest(&self) -> f32 {
        (self.params.iter())
            .map(|p| p.params.limits.max_speed)
            .fold(0.0, f32::max)
    }

    /// Fills `ceilings`, by agent index, with the squared distance within which the next
    /// force pass offers each agent's neighbours to its nearest: the farthest of those kept
    /// this tick, by slot in `nearest`, plus how much nearer a move of `dt` can bring two
    /// agents. A neighbour beyond it was beyond the farthest kept too, so the nearest are most
    /// likely the same agents, and the scan skips the rest of the candidates; where the
    /// ceiling leaves too few (an agent moved by game code, say), the step scans again.
    /// Infinite where this tick kept fewer than [`MOST_AGENTS_AVOIDED`], or none.
    pub(crate) fn nearest_ceilings(
        &self,
        dt: f32,
        nearest: &[Option<NearestKeys>],
        ceilings: &mut [f32],
    ) {
        let closing = 2.0 * self.fastest() * dt;
        let slots = self.index.grid.slots();
        for_each_chunk_mut(self.executor, ceilings, |first, chunk| {
            for (k, ceiling) in chunk.iter_mut().enumerate() {
                let kept = nearest.get(slots[first + k] as usize).copied().flatten();
                *ceiling = kept.map_or(f32::INFINITY, |kept| {
                    let reach = kept.farthest_kept().sqrt() + closing;
                    reach * reach
                });
            }
        });
    }

    /// What every agent's choice in a tick of `dt` among `obstacles` shares.
    fn tick<'a>(&self, dt: f32, obstacles: &'a Layered<'a>) -> Tick<'a> {
        let layered = avoids_by_layers(self.params);
        Tick {
            dt,
            layered,
            all_avoid: !layered
                && (self.params.iter()).all(|p| p.velocity_obstacles != VelocityObstacles::Off),
            obstacles,
            fastest: self.fastest(),
        }
    }

    /// Fills `choices.velocities`, by grid slot, with each agent's velocity: its `preferred`
    /// one, or for agents that avoid velocity obstacles, the nearest that keeps clear of their
    /// neighbours and does not cross `obstacles` or walls within `dt`; then runs the contact
    /// rounds (see [`contacts`]). Reads the positions and velocities of the last
    /// [`build_index`](Self::build_index), the state at the start of the tick.
    pub(crate) fn choose_velocities(&self, dt: f32, obstacles: &Layered, choices: &mut Choices) {
        let tick = self.tick(dt, obstacles);
        let Choices {
            velocities,
            may_overlap,
            ..
        } = choices;
        // Every slot's entries are written by the pass, in parallel: only the lengths are set
        // here.
        velocities.resize(self.len(), Vec3::ZERO);
        may_overlap.resize(self.len(), false);
        for_each_chunk_mut2(
            self.executor,
            velocities,
            may_overlap,
            |first_slot, velocities, may_overlap| {
                let mut scratch = Scratch::default();
                let slots = first_slot..first_slot + velocities.len();
                self.choose_each(slots, &tick, None, &mut scratch, |k, choice| {
                    (velocities[k], may_overlap[k]) = choice;
                });
            },
        );
        self.resolve_contacts(&tick, choices);
    }

    /// Chooses for the agents in `slots`, [`BATCH`] at a time, and hands `chosen` each one's
    /// place among them and its choice (see [`prepare`](Self::prepare)). In a contact `round`,
    /// with contact bounds.
    fn choose_each(
        &self,
        slots: impl Iterator<Item = usize>,
        tick: &Tick,
        round: Option<&Round>,
        scratch: &mut Scratch,
        mut chosen: impl FnMut(usize, (Vec3, bool)),
    ) {
        let mut batch = [0; BATCH];
        let (mut len, mut done) = (0, 0);
        for slot in slots {
            batch[len] = slot;
            len += 1;
            if len == BATCH {
                let choices = self.choose_batch(&batch, tick, round, scratch);
                (0..len).for_each(|k| chosen(done + k, choices[k]));
                (done, len) = (done + len, 0);
            }
        }
        let choices = self.choose_batch(&batch[..len], tick, round, scratch);
        (0..len).for_each(|k| chosen(done + k, choices[k]));
    }

    /// The choices of the agents in `slots` (at most [`BATCH`]): each one's encounters built,
    /// then the half-spaces of all of them computed together, then each one's program solved.
    #[inline]
    fn choose_batch(
        &self,
        slots: &[usize],
        tick: &Tick,
        round: Option<&Round>,
        scratch: &mut Scratch,
    ) -> [(Vec3, bool); BATCH] {
        let mut choices = [(Vec3::ZERO, false); BATCH];
        scratch.pending.clear();
        scratch.encounters.clear();
        scratch.bounds.clear();
        for (at, &slot) in slots.iter().enumerate() {
            choices[at] = self.prepare(at, slot, tick, round, scratch);
        }
        if scratch.pending.is_empty() {
            return choices;
        }
        let simd = self.index.lanes.simd();
        let encounters = &mut scratch.encounters;
        encounters.pad();
        match self.space {
            Space::Planar => {
                scratch.lines.clear();
                planar::half_planes(simd, encounters, tick.dt, &mut scratch.lines);
            }
            Space::Volume => {
                scratch.spaces.clear();
                volume::half_spaces(simd, encounters, tick.dt, &mut scratch.spaces);
            }
        }
        let pending = core::mem::take(&mut scratch.pending);
        for agent in &pending {
            choices[agent.at] = self.finish(agent, tick, scratch);
        }
        scratch.pending = pending;
        choices
    }

    /// The velocity of the agent in grid `slot`, and whether it may end the tick overlapping a
    /// neighbour (see [`finish`](Self::finish)), where it needs no program: the velocity it
    /// prefers, where it avoids no neighbour. Else its encounters and bounds are added to the
    /// batch in `scratch`, and it waits, at place `at`, for their half-spaces; what it returns
    /// then (the velocity it prefers) stands in until [`finish`](Self::finish) replaces it. In
    /// a contact `round`, with contact bounds.
    #[inline(always)]
    fn prepare(
        &self,
        at: usize,
        slot: usize,
        tick: &Tick,
        round: Option<&Round>,
        scratch: &mut Scratch,
    ) -> (Vec3, bool) {
        let agent = &self.index.gathered[slot];
        let preferred = self.preferred[agent.index as usize];
        let prepared = &self.params[agent.params as usize];
        let solid = match prepared.velocity_obstacles {
            VelocityObstacles::Off => return (preferred, false),
            VelocityObstacles::Reciprocal => false,
            VelocityObstacles::Solid => true,
        };
        self.nearest_neighbours(slot, prepared, tick.layered, scratch);
        if scratch.near.is_empty() {
            return (preferred, false);
        }
        let own = prepared.params.perception;
        let max_speed = prepared.params.limits.max_speed;
        let velocity = agent.body.velocity;
        let dt = tick.dt;
        let Scratch {
            near,
            encounters,
            bounds,
            ..
        } = scratch;
        let first_bound = bounds.len();
        if let Some(round) = round {
            bounds.extend(near.iter().filter_map(|near| {
                let (encounter, bounded) = self.encounter(agent.index, &own, near);
                let bounded = bounded.is_some_and(|mode| {
                    mode == VelocityObstacles::Solid || round.in_contact[near.slot]
                });
                round.contact(&encounter, near.slot, bounded, dt, max_speed)
            }));
        }
        // Reciprocal agents' encounters go to the program as it takes them; those of solid
        // agents keep the true radii and shares, which their contact bounds need.
        let first_encounter = encounters.len();
        for near in near.iter() {
            let (encounter, _) = self.encounter(agent.index, &own, near);
            if solid {
                if let Some(bound) = contact(&encounter, dt, max_speed) {
                    bounds.push(bound);
                }
                encounters.push(&encounter, velocity);
            } else {
                encounters.push(&as_programmed(&encounter), velocity);
            }
        }
        scratch.pending.push(Pending {
            at,
            slot,
            preferred,
            goal: self.goal(agent.index as usize, preferred, velocity, max_speed),
            max_speed,
            solid,
            encounters: first_encounter..scratch.encounters.len(),
            bounds: first_bound..scratch.bounds.len(),
        });
        (preferred, false)
    }

    /// The velocity of the `pending` agent, its half-spaces computed, and whether it may end
    /// the tick overlapping a neighbour: a reciprocal agent whose body is within reach of a
    /// neighbour's (near enough that the two could touch by the tick's end), where its program
    /// was relaxed or some agents do not avoid back.
    #[inline(always)]
    fn finish(&self, pending: &Pending, tick: &Tick, scratch: &mut Scratch) -> (Vec3, bool) {
        let agent = &self.index.gathered[pending.slot];
        let boundary = &self.params[agent.params as usize].params.boundary;
        let (mut chosen, mut relaxed) = self.solve(pending, &[], scratch);
        // A velocity into an obstacle or a wall would be cut short there and slide along it,
        // off the course the program chose and perhaps into a neighbour: bound it too, and
        // choose again (up to a corner's three surfaces).
        let mut surfaces = [(Vec3::ZERO, 0.0); MOST_SURFACES];
        for k in 0..MOST_SURFACES {
            let Some(bound) = self.surface_bound(
                agent.body.position,
                chosen,
                tick.dt,
                tick.obstacles,
                boundary,
            ) else {
                break;
            };
            surfaces[k] = bound;
            (chosen, relaxed) = self.solve(pending, &surfaces[..=k], scratch);
        }
        // Whether the choice might end the tick inside a neighbour: where the program held and
        // every neighbour avoids back, the paper's guarantee holds for the tick. Else, where a
        // neighbour is within reach by the program's radii, which are at least the bodies'.
        let max_speed = pending.max_speed;
        let reach = tick.dt * (max_speed + tick.fastest);
        let may_overlap = !pending.solid
            && (relaxed || !tick.all_avoid)
            && pending.encounters.clone().any(|k| {
                let touching = scratch.encounters.radius(k) + reach;
                scratch.encounters.offset(k).length_squared() < touching * touching
            });
        // The program keeps within the max speed; rounding at extreme values may not.
        let chosen = if chosen.is_finite() {
            limit_length(chosen, max_speed)
        } else {
            pending.preferred
        };
        (chosen, may_overlap)
    }

    /// The encounter of agent `index` (perceiving as `own`) with its neighbour `near`, with
    /// the bodies' true radii and the agent's true share; and where the neighbour avoids the
    /// agent back, how (so that the two share each manoeuvre).
    #[inline(always)]
    fn encounter(
        &self,
        index: u32,
        own: &Perception,
        near: &Near,
    ) -> (Encounter<Vec3>, Option<VelocityObstacles>) {
        // From the compact columns rather than the neighbour's whole gathered entry, a cache
        // line apart from the agent's own and rarely in cache.
        let other_index = self.index.grid.order()[near.slot];
        let other_params = &self.params[self.index.lanes.params(near.slot) as usize];
        let theirs = &other_params.params.perception;
        let avoided_back = (other_params.velocity_obstacles != VelocityObstacles::Off
            && avoids(theirs, own))
        .then_some(other_params.velocity_obstacles);
        let encounter = Encounter {
            offset: near.offset,
            velocity: self.index.lanes.velocity(near.slot),
            radius: 0.5 * (own.collision_distance + theirs.collision_distance),
            horizon: own.collision_horizon,
            share: if avoided_back.is_some() {
                manoeuvre_share(
                    (index, own.avoidance_priority),
                    (other_index, theirs.avoidance_priority),
                )
            } else {
                1.0
            },
            fixed_apart: if near.offset.length_squared().is_normal() {
                Vec3::ZERO
            } else {
                unit(-near.offset).unwrap_or_else(|| {
                    coincident_direction(index as usize, other_index as usize, self.space)
                })
            },
        };
        (encounter, avoided_back)
    }

    /// The velocity nearest the `pending` agent's goal, within its max speed, that keeps to its
    /// bounds and the `surfaces` bounds and as well as it can to its encounters' half-spaces
    /// (computed in `scratch`); and whether the program relaxed them (not all could be met).
    #[inline]
    fn solve(
        &self,
        pending: &Pending,
        surfaces: &[(Vec3, f32)],
        scratch: &mut Scratch,
    ) -> (Vec3, bool) {
        let bounds = scratch.bounds[pending.bounds.clone()]
            .iter()
            .chain(surfaces);
        let fixed = pending.bounds.len() + surfaces.len();
        let (max_speed, goal) = (pending.max_speed, pending.goal);
        match self.space {
            Space::Planar => {
                let flat = |v: Vec3| v.truncate();
                let lines = bounds_first(
                    bounds.map(|&(n, b)| planar::HalfPlane::at_most(flat(n), b)),
                    &scratch.lines[pending.encounters.clone()],
                    &mut scratch.program_lines,
                );
                let projected = &mut scratch.projected_lines;
                let (chosen, relaxed) =
                    planar::solve(lines, fixed, max_speed, flat(goal), projected);
                (chosen.extend(0.0), relaxed)
            }
            Space::Volume => {
                let spaces = bounds_first(
                    bounds.map(|&(n, b)| volume::HalfSpace::at_most(n, b)),
                    &scratch.spaces[pending.encounters.clone()],
                    &mut scratch.program_spaces,
                );
                volume::solve(
                    spaces,
                    fixed,
                    max_speed,
                    goal,
                    &mut scratch.projected_spaces,
                )
            }
        }
    }

    /// The bound `n . v <= bound` that keeps an agent at `position` moving at `v` for `dt`
    /// from crossing the first obstacle surface or hard wall of `boundary` it would cross:
    /// `n` points into the surface (the obstacle's outward normal reversed), and the bound is
    /// the gap to its tangent plane over `dt`, which keeps the agent out of a convex shape.
    /// `None` when the move crosses nothing.
    #[inline]
    fn surface_bound(
        &self,
        position: Vec3,
        v: Vec3,
        dt: f32,
        obstacles: &Layered,
        boundary: &Boundary,
    ) -> Option<(Vec3, f32)> {
        let to = self.space.flat(position + v * dt);
        if !obstacles.is_empty()
            && let (stop, Some(normal)) = obstacles.constrain(position, to)
        {
            return Some((-normal, (position - stop).dot(normal).max(0.0) / dt));
        }
        let Boundary::Walls { min, max, .. } = *boundary else {
            return None;
        };
        let axes = match self.space {
            Space::Planar => 0..2,
            Space::Volume => 0..3,
        };
        // An axis on which the box is flat has no walls: it holds every agent on the plane.
        axes.filter(|&axis| min[axis] < max[axis]).find_map(|axis| {
            let across = Vec3::AXES[axis];
            if to[axis] > max[axis] {
                Some((across, (max[axis] - position[axis]).max(0.0) / dt))
            } else if to[axis] < min[axis] {
                Some((-across, (position[axis] - min[axis]).max(0.0) / dt))
            } else {
                None
            }
        })
    }

    /// The velocity agent `i`, moving at `velocity`, aims for: its preferred one, moved by a
    /// tiny seeded draw (up to [`NUDGE`] of its max speed along each axis), since symmetric
    /// crowds (agents round a circle heading for the opposite points) otherwise settle into an
    /// equilibrium where each blocks the next, as the RVO2 library's examples perturb the
    /// preferred velocity; and for a blocked agent (moving along its preferred velocity at
    /// under [`BLOCKED`] of that speed), turned to the right of it by [`STEP_ASIDE`] times its
    /// speed, so that a jam of agents pressing into one another turns round and unwinds
    /// instead of standing still.
    #[inline]
    fn goal(&self, i: usize, preferred: Vec3, velocity: Vec3, max_speed: f32) -> Vec3 {
        let mut draw = NoiseDraw::new(self.seed ^ NUDGE_STREAM, self.tick, i);
        let mut goal = preferred + self.space.flat(draw.in_cube()) * (NUDGE * max_speed);
        let speed = length(preferred);
        if let Some(along) = unit(preferred)
            && velocity.dot(along) < BLOCKED * speed
        {
            goal += self.space.right_of(along) * (STEP_ASIDE * speed);
        }
        goal
    }

    /// Fills `scratch.near` with the agent in `slot`'s nearest neighbours within its neighbour
    /// radius (across wrap seams too) that it avoids (only those in its mask's layers, when
    /// `layered`), at most [`MOST_AGENTS_AVOIDED`], nearest first and ties by slot, so that the
    /// order never depends on the scan's: as the force pass kept them, where it did.
    fn nearest_neighbours(
        &self,
        slot: usize,
        prepared: &Prepared,
        layered: bool,
        scratch: &mut Scratch,
    ) {
        let position = self.index.gathered[slot].body.position;
        let images = seam_images(position, prepared, self.space);
        let kept = match self.forces.nearest.get(slot) {
            Some(&Some(kept)) if self.forces.pending => kept,
            _ => self.scan_nearest(slot, position, &images, prepared, layered, scratch),
        };
        // The offsets again, with the scan's arithmetic: across the one image of the box
        // that brings the neighbour within the radius (two images of one neighbour are more
        // than two radii apart, so never both within it).
        let (lanes, radius_sq) = (&self.index.lanes, prepared.neighbour_radius_sq);
        let near = &mut scratch.near;
        near.clear();
        for other in kept.slots() {
            // Near no seam, the one image is the agent itself, which brings each within it.
            let offset = if images.only_zero() {
                lanes.position(other) - position
            } else {
                images
                    .iter()
                    .map(|shift| lanes.position(other) - (position + shift))
                    .find(|offset| offset.length_squared() <= radius_sq)
                    .unwrap_or_default()
            };
            near.push(Near {
                slot: other,
                offset: self.space.flat(offset),
            });
        }
    }

    /// The nearest neighbours that [`nearest_neighbours`](Self::nearest_neighbours) takes, by
    /// a scan of their own round the agent in `slot` at `position` and its seam `images`.
    fn scan_nearest(
        &self,
        slot: usize,
        position: Vec3,
        images: &Images,
        prepared: &Prepared,
        layered: bool,
        scratch: &mut Scratch,
    ) -> NearestKeys {
        let grid = &self.index.grid;
        let Scratch {
            stencil_cell,
            stencil,
            seam_stencil,
            ..
        } = scratch;
        let cell = grid.cell_of(position);
        if *stencil_cell != Some(cell) {
            grid.stencil(cell, self.space, stencil);
            *stencil_cell = Some(cell);
        }
        let radius_sq = prepared.neighbour_radius_sq;
        let perception = &prepared.params.perception;
        let mut nearest = NearestKeys::default();
        for shift in images.iter() {
            let centre = position + shift;
            let ranges = image_ranges(
                self.index,
                self.space,
                centre,
                shift,
                stencil,
                seam_stencil,
            );
            let own = if shift == Vec3::ZERO {
                slot
            } else {
                usize::MAX
            };
            let lanes = &self.index.lanes;
            lanes.offer_nearest(ranges, centre, own, radius_sq, &mut nearest, |other| {
                !layered || {
                    let theirs = &self.params[lanes.params(other) as usize];
                    avoids(perception, &theirs.params.perception)
                }
            });
        }
        nearest
    }
}

#[cfg(test)]
impl VelocityInputs<'_> {
    /// Every agent's first choice (before the contact rounds) by grid slot, the agents taken
    /// `batch` at a time (at most [`BATCH`]) with one scratch space, as
    /// [`choose_velocities`](Self::choose_velocities) makes them after an
    /// [`integrate`](Self::integrate) of `dt` with no colliders: the velocity, and whether the
    /// agent may end the tick overlapping a neighbour.
    pub(crate) fn choices_in_batches_of_among(
        &self,
        batch: usize,
        dt: f32,
        obstacles: &ObstacleSet,
    ) -> Vec<(Vec3, bool)> {
        let obstacles = Layered::new(obstacles, None);
        let tick = self.tick(dt, &obstacles);
        let mut scratch = Scratch::default();
        let slots: Vec<usize> = (0..self.len()).collect();
        let batches = slots.chunks(batch).flat_map(|slots| {
            self.choose_batch(slots, &tick, None, &mut scratch)[..slots.len()].to_vec()
        });
        batches.collect()
    }

    /// The neighbours the agent in grid `slot` avoids, as
    /// [`choose_velocities`](Self::choose_velocities) finds them after
    /// [`build_index`](Self::build_index) (and, where it keeps them,
    /// [`accumulate_forces`](Self::accumulate_forces)): slots and offsets, nearest first.
    pub(crate) fn avoided_neighbours(&self, slot: usize) -> Vec<(usize, Vec3)> {
        let prepared = &self.params[self.index.gathered[slot].params as usize];
        let mut scratch = Scratch::default();
        self.nearest_neighbours(slot, prepared, true, &mut scratch);
        scratch.near.iter().map(|n| (n.slot, n.offset)).collect()
    }
}

/// An agent's program: its encounters' constraints `own` as they are where it has no
/// `bounds`, else the bounds first (which the program never relaxes) and then `own`, in
/// `program`.
#[inline]
fn bounds_first<'a, T: Copy>(
    mut bounds: impl Iterator<Item = T>,
    own: &'a [T],
    program: &'a mut Vec<T>,
) -> &'a [T] {
    let Some(first) = bounds.next() else {
        return own;
    };
    program.clear();
    program.push(first);
    program.extend(bounds);
    program.extend_from_slice(own);
    program
}

/// The encounter `e` as the linear program takes it: bodies [`MARGIN`] larger, and
/// [`SHARE_TAKEN`] times the agent's share of the manoeuvre, at most all of it.
#[inline]
pub(crate) fn as_programmed(e: &Encounter<Vec3>) -> Encounter<Vec3> {
    Encounter {
        radius: e.radius * (1.0 + MARGIN),
        share: (e.share * SHARE_TAKEN).min(1.0),
        ..*e
    }
}

/// Whether an agent perceiving as `own` avoids one perceiving as `theirs`: its avoidance mask
/// has one of the other's avoidance layers.
#[inline]
pub(crate) fn avoids(own: &Perception, theirs: &Perception) -> bool {
    own.avoidance_mask & theirs.avoidance_layers != 0
}

/// The share of a manoeuvre agent `i` of priority `p_i` takes when it meets agent `j` of
/// priority `p_j` and each avoids the other, given as `(i, p_i)` and `(j, p_j)`: `p_j / (p_i +
/// p_j)`, so the agent of lower priority takes the larger share, or between equal priorities
/// [`yielding_share`]. The two shares add up to one (to rounding), so together the two just
/// clear each other.
#[inline]
pub(crate) fn manoeuvre_share((i, p_i): (u32, f32), (j, p_j): (u32, f32)) -> f32 {
    if p_i == p_j {
        yielding_share(i, j)
    } else {
        p_j / (p_i + p_j)
    }
}

/// The share of a manoeuvre agent `i` takes when it meets agent `j`, both of the same priority:
/// a half each, moved by [`YIELD`] toward the one that ranks lower by a fixed hash of their
/// indices.
/// The two shares still add up to one, so together the two just clear each other, but in a
/// symmetric jam (agents pressing into a ring of others round a circle) some yield and the rest
/// go through, where equal shares would leave them standing.
#[inline]
pub(crate) fn yielding_share(i: u32, j: u32) -> f32 {
    let rank = |k: u32| {
        let mut h = k.wrapping_mul(0x9E37_79B1);
        h ^= h >> 15;
        h.wrapping_mul(0x2C1B_3C6D)
    };
    // Which ranks lower is as good as random: a sign rather than a branch.
    let (own, theirs) = ((rank(i), i), (rank(j), j));
    let sign = i8::from(own < theirs) - i8::from(own > theirs);
    0.5 + YIELD * f32::from(sign)
}
