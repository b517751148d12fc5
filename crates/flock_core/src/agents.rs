//! What the crowd holds of each agent: its input, its body, and what it carries between ticks.

use glam::Vec3;

use crate::maths::unit;
use crate::obstacles::AvoidanceHold;
use crate::roles::{Leader, Standoff};
use crate::rules::prediction::Prediction;
use crate::sanitise::{Checker, Correction, Value};
use crate::tuning::{LARGEST_PARAMETER, Prepared, SteeringLimits};

/// Index of a parameter set added with [`Crowd::add_params`](crate::Crowd::add_params).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamsId(pub u32);

/// One agent's state as handed to [`Crowd::push`](crate::Crowd::push).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AgentInput {
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// Last direction of travel (unit length, or zero when unknown). Used for the field of view
    /// and the minimum speed while the velocity is zero.
    pub heading: Vec3,
    /// Flock number: agents align and cohere only with agents of the same flock.
    pub flock: u32,
    /// Parameter set.
    pub params: ParamsId,
    /// Point to seek, if any.
    pub target: Option<Vec3>,
}

impl AgentInput {
    /// Returns this input with non-finite values replaced, and what was replaced: a position
    /// with any non-finite component becomes `fallback_position` (or the origin), such a
    /// velocity becomes zero, such a heading is forgotten, and such a target is dropped.
    #[inline]
    pub fn sanitized(self, fallback_position: Vec3) -> (Self, Vec<Correction>) {
        if self.is_finite() {
            (self, Vec::new())
        } else {
            self.replace_non_finite(fallback_position)
        }
    }

    #[cold]
    fn replace_non_finite(mut self, fallback_position: Vec3) -> (Self, Vec<Correction>) {
        let mut check = Checker::default();
        let fallback = if fallback_position.is_finite() {
            fallback_position
        } else {
            Vec3::ZERO
        };
        check.finite_vec("position", &mut self.position, fallback);
        check.finite_vec("velocity", &mut self.velocity, Vec3::ZERO);
        if !self.heading.is_finite() {
            self.heading = Vec3::ZERO;
        }
        if let Some(target) = self.target
            && !target.is_finite()
        {
            check.record(
                "target",
                Value::Vector(target),
                Value::None,
                "must be finite; the target is ignored",
            );
            self.target = None;
        }
        (self, check.corrections)
    }

    /// Whether every value is finite (a missing target counts as finite).
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.heading.is_finite()
            && self.target.is_none_or(Vec3::is_finite)
    }
}

/// What an agent carries from one tick to the next besides its position and velocity. A crowd
/// rebuilt every tick (as the plugin's is) reads it with
/// [`Crowd::memory`](crate::Crowd::memory) after integration and gives it back with
/// [`Crowd::set_memory`](crate::Crowd::set_memory) after the next push.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AgentMemory {
    /// The obstacle avoidance direction being held, set by avoidance when
    /// [`ObstacleAvoidance::hold_seconds`](crate::ObstacleAvoidance::hold_seconds) is positive and
    /// counted down by integration.
    pub hold: Option<AvoidanceHold>,
    /// Where the wander point is, as a unit direction (zero until first drawn).
    pub wander: Vec3,
    /// The steering force last computed, kept while level of detail is on: a far agent steers
    /// with it until its next update.
    pub last_force: Option<Vec3>,
}

impl AgentMemory {
    /// The memory with unusable parts dropped: a hold with a zero or non-finite direction or
    /// no time left, a zero or non-finite wander direction (it starts afresh), a non-finite
    /// force (the agent then updates at once). `flat` puts directions into the crowd's space.
    pub(crate) fn usable(self, flat: impl Fn(Vec3) -> Vec3) -> Self {
        Self {
            hold: self.hold.and_then(|h| {
                let direction = unit(flat(h.direction))?;
                (h.seconds_left > 0.0 && h.seconds_left.is_finite()).then_some(AvoidanceHold {
                    direction,
                    seconds_left: h.seconds_left,
                })
            }),
            wander: unit(flat(self.wander)).unwrap_or(Vec3::ZERO),
            last_force: self.last_force.filter(|f| f.is_finite()),
        }
    }
}

/// What agents have beyond their bodies: their memory (held avoidance, wander point, last
/// force) and this tick's leader, flow and standoff, one column per kind so that a pass reads
/// only what it needs. A column is empty until some agent has a value in it, so that crowds
/// without that kind pay nothing, and from then on one entry per agent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Extras {
    holds: Vec<Option<AvoidanceHold>>,
    /// Whether some hold may be set, so that crowds without holds skip their countdown.
    pub(crate) holding: bool,
    wanders: Vec<Vec3>,
    last_forces: Vec<Option<Vec3>>,
    leaders: Vec<Option<Leader>>,
    flows: Vec<Vec3>,
    standoffs: Vec<Option<Standoff>>,
    speed_factors: Vec<f32>,
}

/// `column[i]`, or the empty value where the column is not that long.
fn get<T: Copy + Default>(column: &[T], i: usize) -> T {
    column.get(i).copied().unwrap_or_default()
}

/// Sets `column[i]` to `value` for a crowd of `len` agents, sizing the column first, unless the
/// value is empty and the column does not reach `i` yet (it then stays as short).
fn put<T: Copy + Default + PartialEq>(column: &mut Vec<T>, i: usize, len: usize, value: T) {
    if value == T::default() && i >= column.len() {
        return;
    }
    column.resize(len, T::default());
    column[i] = value;
}

impl Extras {
    /// Forgets every agent's.
    pub(crate) fn clear(&mut self) {
        self.holds.clear();
        self.holding = false;
        self.wanders.clear();
        self.last_forces.clear();
        self.leaders.clear();
        self.flows.clear();
        self.standoffs.clear();
        self.speed_factors.clear();
    }

    /// Agent `i`'s memory.
    #[inline]
    pub(crate) fn memory(&self, i: usize) -> AgentMemory {
        AgentMemory {
            hold: self.hold(i),
            wander: self.wander(i),
            last_force: self.last_force(i),
        }
    }

    /// Sets agent `i`'s memory, of a crowd of `len` (already made usable).
    pub(crate) fn set_memory(&mut self, i: usize, len: usize, memory: AgentMemory) {
        self.holding |= memory.hold.is_some();
        put(&mut self.holds, i, len, memory.hold);
        put(&mut self.wanders, i, len, memory.wander);
        put(&mut self.last_forces, i, len, memory.last_force);
    }

    /// The avoidance direction agent `i` holds.
    #[inline]
    pub(crate) fn hold(&self, i: usize) -> Option<AvoidanceHold> {
        get(&self.holds, i)
    }

    /// Every agent's held direction, for a crowd of `len`, to change.
    pub(crate) fn holds_mut(&mut self, len: usize) -> &mut [Option<AvoidanceHold>] {
        self.holds.resize(len, None);
        &mut self.holds
    }

    /// Agent `i`'s wander direction (zero before it is drawn).
    #[inline]
    pub(crate) fn wander(&self, i: usize) -> Vec3 {
        get(&self.wanders, i)
    }

    /// Whether some agent has a wander direction.
    #[inline]
    pub(crate) fn has_wanders(&self) -> bool {
        !self.wanders.is_empty()
    }

    /// Every agent's wander direction, for a crowd of `len`, to change.
    pub(crate) fn wanders_mut(&mut self, len: usize) -> &mut [Vec3] {
        self.wanders.resize(len, Vec3::ZERO);
        &mut self.wanders
    }

    /// The force agent `i` last computed.
    #[inline]
    pub(crate) fn last_force(&self, i: usize) -> Option<Vec3> {
        get(&self.last_forces, i)
    }

    /// Every agent's last force, for a crowd of `len`, to change.
    pub(crate) fn last_forces_mut(&mut self, len: usize) -> &mut [Option<Vec3>] {
        self.last_forces.resize(len, None);
        &mut self.last_forces
    }

    /// Forgets every agent's last force.
    pub(crate) fn forget_last_forces(&mut self) {
        self.last_forces.clear();
    }

    /// The leader agent `i` follows this tick.
    #[inline]
    pub(crate) fn leader(&self, i: usize) -> Option<Leader> {
        get(&self.leaders, i)
    }

    /// Sets agent `i`'s leader, of a crowd of `len`.
    pub(crate) fn set_leader(&mut self, i: usize, len: usize, leader: Option<Leader>) {
        put(&mut self.leaders, i, len, leader);
    }

    /// The flow fed to agent `i` this tick.
    #[inline]
    pub(crate) fn flow(&self, i: usize) -> Vec3 {
        get(&self.flows, i)
    }

    /// Sets agent `i`'s flow, of a crowd of `len`.
    pub(crate) fn set_flow(&mut self, i: usize, len: usize, flow: Vec3) {
        self.flows.resize(len, Vec3::ZERO);
        self.flows[i] = flow;
    }

    /// Which way agent `i` backs off this tick.
    #[inline]
    pub(crate) fn standoff(&self, i: usize) -> Option<Standoff> {
        get(&self.standoffs, i)
    }

    /// Sets agent `i`'s standoff, of a crowd of `len`.
    pub(crate) fn set_standoff(&mut self, i: usize, len: usize, standoff: Option<Standoff>) {
        put(&mut self.standoffs, i, len, standoff);
    }

    /// Every agent's speed factor.
    #[inline]
    pub(crate) fn speed_factors(&self) -> SpeedFactors<'_> {
        SpeedFactors(&self.speed_factors)
    }

    /// Sets agent `i`'s speed factor (finite and positive), of a crowd of `len`.
    pub(crate) fn set_speed_factor(&mut self, i: usize, len: usize, factor: f32) {
        if factor == 1.0 && i >= self.speed_factors.len() {
            return;
        }
        self.speed_factors.resize(len, 1.0);
        self.speed_factors[i] = factor;
    }
}

/// By agent index, the factor on each agent's speeds and force limit (see
/// [`Crowd::set_speed_factor`](crate::Crowd::set_speed_factor)): 1 past the end, so that
/// crowds without factors keep an empty column.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpeedFactors<'a>(&'a [f32]);

impl SpeedFactors<'_> {
    /// Agent `i`'s factor.
    #[inline]
    pub(crate) fn of(self, i: usize) -> f32 {
        self.0.get(i).copied().unwrap_or(1.0)
    }

    /// Agent `i`'s limits: `limits` with its speeds and force limit scaled by its factor,
    /// each kept within [`LARGEST_PARAMETER`].
    #[inline]
    pub(crate) fn limits(self, i: usize, limits: &SteeringLimits) -> SteeringLimits {
        let factor = self.of(i);
        if factor == 1.0 {
            return *limits;
        }
        let scale = |x: f32| (x * factor).min(LARGEST_PARAMETER);
        SteeringLimits {
            max_speed: scale(limits.max_speed),
            min_speed: scale(limits.min_speed),
            max_force: scale(limits.max_force),
            ..*limits
        }
    }

    /// Whether some agent's factor is not 1.
    pub(crate) fn any_set(self) -> bool {
        self.0.iter().any(|&f| f != 1.0)
    }

    /// The largest factor of any agent (1 where none is set).
    pub(crate) fn largest(self) -> f32 {
        self.0.iter().copied().fold(1.0, f32::max)
    }
}

/// What integration changes of an agent.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Body {
    pub(crate) position: Vec3,
    pub(crate) velocity: Vec3,
    pub(crate) heading: Vec3,
}

/// An agent copied into its grid slot, with everything the force pass reads of it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Gathered {
    pub(crate) body: Body,
    pub(crate) target: Option<Vec3>,
    pub(crate) index: u32,
    pub(crate) flock: u32,
    pub(crate) params: u32,
}

/// One agent as the force and avoidance passes read it: its own state, gathered by slot.
pub(crate) struct SlotAgent<'a> {
    pub(crate) index: usize,
    pub(crate) slot: usize,
    pub(crate) position: Vec3,
    pub(crate) velocity: Vec3,
    pub(crate) heading: Vec3,
    pub(crate) params: &'a Prepared,
    /// Its parameter set's limits, scaled by its speed factor.
    pub(crate) limits: SteeringLimits,
    pub(crate) target: Option<Vec3>,
}

impl SlotAgent<'_> {
    /// How the agent predicts collisions, if it does.
    #[inline]
    pub(crate) fn prediction(&self) -> Option<Prediction> {
        let p = &self.params.params.perception;
        self.params.predicts.then_some(Prediction {
            velocity: self.velocity,
            distance_sq: p.collision_distance * p.collision_distance,
            horizon: p.collision_horizon,
        })
    }
}

/// The agents by index, in the order pushed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Agents {
    /// What integration changes.
    pub(crate) bodies: Vec<Body>,
    pub(crate) flocks: Vec<u32>,
    pub(crate) params: Vec<u32>,
    /// The point each seeks, pursuit lead included.
    pub(crate) targets: Vec<Option<Vec3>>,
    /// Whether each one's target is in sight along a way kept clear (see
    /// [`Crowd::set_target_in_sight`](crate::Crowd::set_target_in_sight)).
    pub(crate) targets_in_sight: Vec<bool>,
    /// Forces added with [`Crowd::add_force`](crate::Crowd::add_force) this tick.
    pub(crate) added: Vec<Vec3>,
    /// Memory, leaders, flows and standoffs.
    pub(crate) extras: Extras,
}

impl Agents {
    /// Room for `count` more agents in each column pushed to.
    pub(crate) fn reserve(&mut self, count: usize) {
        self.bodies.reserve(count);
        self.flocks.reserve(count);
        self.params.reserve(count);
        self.targets.reserve(count);
        self.targets_in_sight.reserve(count);
        self.added.reserve(count);
    }
}
