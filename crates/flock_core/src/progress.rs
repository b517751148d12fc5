//! Telling a stuck agent from one that is still on its way: blocked by a crowd, pinned against
//! an obstacle, or chasing a target that moves away as fast as it comes.

#[cfg(feature = "bevy")]
use bevy_reflect::std_traits::ReflectDefault;

/// How an agent's approach to its target goes, carried from tick to tick: the distance it had
/// at the start of the current stretch, and how long that stretch has lasted. An agent is stuck
/// when a stretch lasts the patience it is given without bringing it a step closer.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy_reflect::Reflect))]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
pub struct Progress {
    /// The distance to the target when the current stretch began (infinite before the first
    /// tick with a target).
    pub checkpoint: f32,
    /// Seconds the current stretch has lasted.
    pub stalled_for: f32,
    /// Whether the agent was reported stuck during the current stretch.
    pub reported: bool,
}

impl Default for Progress {
    /// No stretch yet: the first distance starts one.
    fn default() -> Self {
        Self {
            checkpoint: f32::INFINITY,
            stalled_for: 0.0,
            reported: false,
        }
    }
}

impl Progress {
    /// Records a tick of `dt` seconds that left the agent `distance` from its target: coming
    /// more than `step` closer than the checkpoint starts a new stretch there. Returns `true`
    /// once per stretch, on the tick it reaches `patience` seconds: the agent is stuck. A
    /// distance, step, tick or patience that is not finite (or negative) starts nothing and
    /// reports nothing.
    pub fn update(&mut self, distance: f32, step: f32, dt: f32, patience: f32) -> bool {
        let usable = |x: f32| x.is_finite() && x >= 0.0;
        if !(usable(distance) && usable(step) && usable(dt) && usable(patience)) {
            return false;
        }
        if distance < self.checkpoint - step {
            *self = Self {
                checkpoint: distance,
                ..Self::default()
            };
            return false;
        }
        self.stalled_for += dt;
        if self.reported || self.stalled_for < patience {
            return false;
        }
        self.reported = true;
        true
    }

    /// Forgets the approach (the agent arrived or lost its target): the next distance starts a
    /// new stretch.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}
