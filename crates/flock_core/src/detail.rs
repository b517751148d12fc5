//! Level of detail: far agents compute their steering every k-th tick and keep their last
//! force in between.

use glam::Vec3;

#[cfg(feature = "bevy")]
use bevy_reflect::std_traits::ReflectDefault;

use crate::agents::{Extras, SlotAgent};

/// Level of detail for large crowds: agents further than `near_radius` from a focus (the
/// camera; the plugin's `DetailFocus` entity) compute their steering only every
/// `interval`-th tick, staggered by agent index so that each tick updates an even share of
/// them; in between they keep steering with the force they last computed and still move every
/// tick, so they move smoothly. The force pass, the costly part of a tick, then does roughly
/// `near + far / interval` agents' work.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy", derive(bevy_reflect::Reflect))]
#[cfg_attr(feature = "bevy", reflect(Default, Debug, Clone, PartialEq))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct LevelOfDetail {
    /// Agents within this distance of the focus update every tick.
    pub near_radius: f32,
    /// Far agents compute their steering once every this many ticks (0 counts as 1).
    pub interval: u32,
}

impl Default for LevelOfDetail {
    /// Full detail within 50 units; far agents every 4th tick.
    fn default() -> Self {
        Self {
            near_radius: 50.0,
            interval: 4,
        }
    }
}

/// Level of detail as the force pass applies it: around a focus, with an interval of at
/// least 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Detail {
    focus: Vec3,
    near_sq: f32,
    interval: u64,
}

impl Detail {
    /// Level of detail around `focus`, or `None` when off. An interval of 0 counts as 1; a
    /// non-finite focus or radius switches it off.
    pub(crate) fn new(detail: Option<LevelOfDetail>, focus: Vec3) -> Option<Self> {
        detail
            .filter(|d| focus.is_finite() && d.near_radius.is_finite())
            .map(|d| Detail {
                focus,
                near_sq: d.near_radius * d.near_radius,
                interval: u64::from(d.interval.max(1)),
            })
    }

    /// The force `agent` keeps at `tick` instead of computing one: far from the focus, off its
    /// turn, and with a force from before in `extras`.
    #[inline]
    pub(crate) fn reused_force(
        &self,
        tick: u64,
        extras: &Extras,
        agent: &SlotAgent,
    ) -> Option<Vec3> {
        let on_turn = (tick.wrapping_add(agent.index as u64)).is_multiple_of(self.interval);
        if on_turn || agent.position.distance_squared(self.focus) <= self.near_sq {
            return None;
        }
        extras.last_force(agent.index)
    }
}
