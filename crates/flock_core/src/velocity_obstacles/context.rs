//! What the velocity-obstacle step reads of the crowd, and what one tick's and one chunk's
//! choices share.

use core::ops::Range;

use glam::{IVec3, Vec3};

use crate::agents::SpeedFactors;
use crate::executor::ChunkExecutor;
use crate::forces::ForcePass;
use crate::neighbours::NeighbourIndex;
use crate::obstacles::Layered;
use crate::space::Space;
use crate::tuning::{Prepared, VelocityObstacles};

use super::encounters::EncounterColumns;
use super::headway::Seen;
use super::{planar, volume};

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
    /// By agent index: the factor on its speeds.
    pub(crate) speed_factors: SpeedFactors<'a>,
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
pub(super) fn avoids_by_layers(params: &[Prepared]) -> bool {
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

/// A neighbour kept among the nearest.
#[derive(Clone, Copy, Debug)]
pub(super) struct Near {
    /// The neighbour's grid slot.
    pub(super) slot: usize,
    /// The neighbour's position minus the agent's (on the plane, for planar crowds).
    pub(super) offset: Vec3,
}

/// What every agent's choice in one tick shares.
pub(super) struct Tick<'a> {
    pub(super) dt: f32,
    /// Whether some agents do not avoid every other ([`avoids_by_layers`]).
    pub(super) layered: bool,
    pub(super) obstacles: &'a Layered<'a>,
    /// The highest max speed of any agent: bodies further apart than the reach of their two
    /// speeds within the tick cannot touch by its end.
    pub(super) fastest: f32,
    /// Whether every agent avoids every other with velocity obstacles, so that of two whose
    /// programs both hold, neither ends the tick inside the other.
    pub(super) all_avoid: bool,
    /// Whether agents' max speeds differ, so that the faster may overtake: only then does a
    /// headway measure the lanes beside the agent's own.
    pub(super) overtaking: bool,
}

/// Scratch space a chunk of the step reuses from batch to batch.
#[derive(Default)]
pub(super) struct Scratch {
    /// The cell whose stencil `stencil` holds: agents of a cell sit in consecutive slots.
    pub(super) stencil_cell: Option<IVec3>,
    pub(super) stencil: Vec<Range<usize>>,
    pub(super) seam_stencil: Vec<Range<usize>>,
    pub(super) near: Vec<Near>,
    /// The batch's agents that wait for their program.
    pub(super) pending: Vec<Pending>,
    /// The batch's encounters, each agent's in a run; [`as_programmed`] for reciprocal agents.
    pub(super) encounters: EncounterColumns,
    /// The batch's bounds `n . v <= bound` never relaxed (contacts), each agent's in a run.
    pub(super) bounds: Vec<(Vec3, f32)>,
    /// By encounter: its half-plane (on the plane) or half-space.
    pub(super) lines: Vec<planar::HalfPlane>,
    pub(super) spaces: Vec<volume::HalfSpace>,
    /// One agent's program where it has bounds: those first, then its encounters'.
    pub(super) program_lines: Vec<planar::HalfPlane>,
    pub(super) program_spaces: Vec<volume::HalfSpace>,
    pub(super) projected_lines: Vec<planar::HalfPlane>,
    pub(super) projected_spaces: Vec<volume::HalfSpace>,
    /// The encounters of the agent being prepared, where it keeps a time gap.
    pub(super) seen: Seen,
}

/// An agent of a batch whose encounters are built, waiting for their half-spaces.
pub(super) struct Pending {
    /// Its place in the batch.
    pub(super) at: usize,
    pub(super) slot: usize,
    pub(super) preferred: Vec3,
    /// The velocity it aims for (see [`VelocityInputs::goal`]).
    pub(super) goal: Vec3,
    pub(super) max_speed: f32,
    pub(super) solid: bool,
    /// Its runs of the batch's encounters and bounds.
    pub(super) encounters: Range<usize>,
    pub(super) bounds: Range<usize>,
}

impl VelocityInputs<'_> {
    /// The number of agents.
    pub(super) fn len(&self) -> usize {
        self.index.gathered.len()
    }

    /// The highest max speed of any agent (or above it, where speed factors differ).
    pub(super) fn fastest(&self) -> f32 {
        let fastest_set = (self.params.iter())
            .map(|p| p.params.limits.max_speed)
            .fold(0.0, f32::max);
        fastest_set * self.speed_factors.largest()
    }

    /// What every agent's choice in a tick of `dt` among `obstacles` shares.
    pub(super) fn tick<'a>(&self, dt: f32, obstacles: &'a Layered<'a>) -> Tick<'a> {
        let layered = avoids_by_layers(self.params);
        Tick {
            dt,
            layered,
            all_avoid: !layered
                && (self.params.iter()).all(|p| p.velocity_obstacles != VelocityObstacles::Off),
            obstacles,
            fastest: self.fastest(),
            overtaking: self.speeds_differ(),
        }
    }

    /// Whether some agents' max speeds differ: by their speed factors, or their parameter sets.
    fn speeds_differ(&self) -> bool {
        let speeds = (self.params.iter()).map(|p| p.params.limits.max_speed);
        let (slowest, fastest) = speeds.fold((f32::INFINITY, 0.0_f32), |(lo, hi), s| {
            (lo.min(s), hi.max(s))
        });
        self.speed_factors.any_set() || slowest < fastest
    }
}
