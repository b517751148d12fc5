//! Level of detail: far agents compute their steering every k-th tick and keep their last
//! force in between.

use glam::Vec3;

#[cfg(feature = "bevy")]
use bevy_reflect::std_traits::ReflectDefault;

use crate::Crowd;
use crate::forces::SlotAgent;

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

impl Crowd {
    /// Switches level of detail around `focus` on, or off with `None`. An interval of 0 counts
    /// as 1; a non-finite focus or radius switches it off.
    pub fn set_level_of_detail(&mut self, detail: Option<LevelOfDetail>, focus: Vec3) {
        self.detail = detail
            .filter(|d| focus.is_finite() && d.near_radius.is_finite())
            .map(|d| Detail {
                focus,
                near_sq: d.near_radius * d.near_radius,
                interval: u64::from(d.interval.max(1)),
            });
        if self.detail.is_none() {
            self.agents.extras.forget_last_forces();
        }
    }

    /// How many agents kept their last force instead of computing one in the last force pass
    /// (level of detail).
    pub fn reused_forces(&self) -> usize {
        self.forces.results.iter().filter(|r| r.reused).count()
    }

    /// The force `agent` keeps this tick instead of computing one, under level of detail: far
    /// from the focus, off its turn, and with a force from before.
    #[inline]
    pub(crate) fn reused_force(&self, agent: &SlotAgent) -> Option<Vec3> {
        let detail = self.detail?;
        let on_turn = (self.tick.wrapping_add(agent.index as u64)).is_multiple_of(detail.interval);
        if on_turn || agent.position.distance_squared(detail.focus) <= detail.near_sq {
            return None;
        }
        self.agents.extras.last_force(agent.index)
    }

    /// Under level of detail, keeps each agent's force of this tick's pass for the ticks it
    /// skips.
    pub(crate) fn keep_last_forces(&mut self) {
        if self.detail.is_none() || !self.forces.pending {
            return;
        }
        let (slots, results) = (self.index.grid.slots(), &self.forces.results);
        let kept = self.agents.extras.last_forces_mut(self.agents.bodies.len());
        for (i, kept) in kept.iter_mut().enumerate() {
            *kept = Some(results[slots[i] as usize].force);
        }
    }
}
