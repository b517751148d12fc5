//! Level of detail: far agents compute their steering every k-th tick and keep their last
//! force in between.

use glam::Vec3;

use crate::Crowd;
use crate::forces::SlotAgent;

/// Level of detail (a crowd's far agents update less often). Agents further than
/// `near_radius` from `focus` compute their steering only every `interval`-th tick, staggered
/// by agent index so that the work is spread evenly over the ticks; in between they keep
/// steering with the force they last computed, and still move every tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelOfDetail {
    /// The point detail is kept around (the camera).
    pub focus: Vec3,
    /// Agents within this distance of the focus update every tick.
    pub near_radius: f32,
    /// Far agents compute their steering once every this many ticks (1: every tick).
    pub interval: u32,
}

impl Crowd {
    /// Switches level of detail on or off. An interval of 0 counts as 1; a non-finite focus or
    /// radius switches it off.
    pub fn set_level_of_detail(&mut self, detail: Option<LevelOfDetail>) {
        self.detail = detail
            .filter(|d| d.focus.is_finite() && d.near_radius.is_finite())
            .map(|d| LevelOfDetail {
                interval: d.interval.max(1),
                ..d
            });
        if self.detail.is_none() {
            for extras in &mut self.agents.extras {
                extras.memory.last_force = None;
            }
        }
    }

    /// How many agents kept their last force instead of computing one in the last force pass
    /// (level of detail).
    pub fn reused_forces(&self) -> usize {
        self.forces.results.iter().filter(|r| r.reused).count()
    }

    /// The force `agent` keeps this tick instead of computing one, under level of detail: far
    /// from the focus, off its turn, and with a force from before.
    pub(crate) fn reused_force(&self, agent: &SlotAgent) -> Option<Vec3> {
        let detail = self.detail?;
        let on_turn =
            (self.tick.wrapping_add(agent.index as u64)).is_multiple_of(u64::from(detail.interval));
        let near_sq = detail.near_radius * detail.near_radius;
        if on_turn || agent.position.distance_squared(detail.focus) <= near_sq {
            return None;
        }
        self.agents
            .extras
            .get(agent.index)
            .and_then(|e| e.memory.last_force)
    }

    /// Under level of detail, keeps each agent's force of this tick's pass for the ticks it
    /// skips.
    pub(crate) fn keep_last_forces(&mut self) {
        if self.detail.is_none() || !self.forces.pending {
            return;
        }
        self.agents.extras.resize(self.len(), Default::default());
        let slots = self.index.grid.slots();
        for (i, extras) in self.agents.extras.iter_mut().enumerate() {
            extras.memory.last_force = Some(self.forces.results[slots[i] as usize].force);
        }
    }
}
