//! What the crowd holds of each agent: its input, its body, and what it carries between ticks.

use glam::Vec3;

use crate::maths::unit;
use crate::obstacles::AvoidanceHold;
use crate::rules::{Leader, Standoff};
use crate::sanitise::{Checker, Correction, Value};

/// Index of a parameter set added with [`Crowd::add_params`](crate::Crowd::add_params).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamsId(pub u32);

/// One agent's state as handed to [`Crowd::push`](crate::Crowd::push).
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// What an agent has beyond its body: its memory, and this tick's leader, flow and standoff. The crowd
/// keeps these in one vector, empty until some agent has any, so that crowds without them pay
/// nothing.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AgentExtras {
    pub(crate) memory: AgentMemory,
    /// The leader it follows this tick (see [`Crowd::set_leader`](crate::Crowd::set_leader)).
    pub(crate) leader: Option<Leader>,
    /// The flow fed to it this tick (see [`Crowd::set_flow`](crate::Crowd::set_flow)).
    pub(crate) flow: Vec3,
    /// Which way it backs off from enemies this tick (see
    /// [`Crowd::set_standoff`](crate::Crowd::set_standoff)).
    pub(crate) standoff: Option<Standoff>,
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
