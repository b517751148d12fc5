//! Flow fields: a grid of directions a flock steers along.

use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::Flock;
use crate::diagnostics::Reporter;
use crate::schedule::{FlockingSchedule, Step};
use crate::simulation::{FlockSimulation, on_ground};

/// Feeds every agent of a flock with a [`FlowField`] the field's flow at its position, each
/// tick (a member of [`FlockingPlugins`](crate::FlockingPlugins)).
pub struct FlowFieldsPlugin;

impl Plugin for FlowFieldsPlugin {
    fn build(&self, app: &mut App) {
        let schedule = FlockingSchedule::of(app, "FlowFieldsPlugin");
        app.register_type::<FlowField>()
            .add_systems(schedule, feed_flows.in_set(Step::CopyFlows));
    }
}

/// Samples each flock's [`FlowField`] at its agents' positions and hands the flows to the
/// kernel; a field with a bad cell size or origin is reported once and ignored.
fn feed_flows(
    mut sim: ResMut<FlockSimulation>,
    fields: Query<(Entity, &FlowField), With<Flock>>,
    mut reporter: Reporter,
) {
    if fields.is_empty() {
        return;
    }
    let started = Instant::now();
    // By flock number: the flock's field, if it has a usable one.
    let mut by_number: Vec<Option<&FlowField>> = vec![None; sim.flock_entities.len()];
    for (entity, field) in &fields {
        let Some(entry) = sim.flocks.get(&entity) else {
            continue;
        };
        if field.is_valid() {
            by_number[entry.number as usize] = Some(field);
        } else {
            reporter.warn_once(
                entity,
                "flow field",
                "has a flow field with a cell size that is not positive and finite, or a non-finite origin; its agents ignore it",
            );
        }
    }
    let crowd = sim.crowd_mut();
    let space = crowd.space();
    for i in 0..crowd.len() {
        let field = by_number.get(crowd.flock(i) as usize).copied().flatten();
        // A field on the plane serves every floor.
        let at = on_ground(crowd.position(i), space);
        if let Some(flow) = field.and_then(|f| f.sample(at)) {
            crowd.set_flow(i, flow);
        }
    }
    sim.step_time += started.elapsed();
}

/// A grid of flow vectors over a box of the world, which the members of the flock it is on
/// steer along (weighted by [`FlockWeights::flow`](crate::FlockWeights)): each tick an agent
/// samples the field at its position, interpolating between the centres of the cells around
/// it, and steers toward that velocity, as a fraction of its max speed (a vector of length 1
/// asks for full speed). Agents outside the grid feel no flow.
///
/// Games fill it from what they know of the world: a path planner's distance field, a wind or
/// a current, a crowd's way out. Put it on a [`Flock`](crate::Flock) entity; edit it any time.
/// For a flow per agent (a path to follow), feed
/// [`FlockSimulation::set_flow`](crate::FlockSimulation::set_flow) instead.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_flock_plugin::FlowField;
///
/// // 20 x 20 cells of 1 unit on the XY plane, all flowing round the middle.
/// let field = FlowField::from_fn(Vec3::new(-10.0, -10.0, 0.0), 1.0, UVec3::new(20, 20, 1), |p| {
///     Vec3::new(-p.y, p.x, 0.0).normalize_or_zero()
/// });
/// let flow = field.sample(Vec3::new(5.0, 0.0, 0.0)).unwrap();
/// assert!(flow.y > 0.9);
/// assert_eq!(field.sample(Vec3::new(50.0, 0.0, 0.0)), None);
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct FlowField {
    origin: Vec3,
    cell_size: f32,
    cells: UVec3,
    flow: Vec<Vec3>,
}

impl FlowField {
    /// A field of `cells` cells (use 1 along Z on the plane), each `cell_size` wide, its
    /// lowest corner at `origin`, with no flow anywhere yet.
    pub fn new(origin: Vec3, cell_size: f32, cells: UVec3) -> Self {
        let cells = cells.max(UVec3::ONE);
        Self {
            origin,
            cell_size,
            cells,
            flow: vec![Vec3::ZERO; cells.element_product() as usize],
        }
    }

    /// A field like [`new`](Self::new)'s, each cell's flow given by `flow_at` its centre.
    pub fn from_fn(
        origin: Vec3,
        cell_size: f32,
        cells: UVec3,
        mut flow_at: impl FnMut(Vec3) -> Vec3,
    ) -> Self {
        let mut field = Self::new(origin, cell_size, cells);
        for z in 0..field.cells.z {
            for y in 0..field.cells.y {
                for x in 0..field.cells.x {
                    let cell = UVec3::new(x, y, z);
                    let flow = flow_at(field.centre(cell));
                    field.set(cell, flow);
                }
            }
        }
        field
    }

    /// The number of cells along each axis.
    pub fn cells(&self) -> UVec3 {
        self.cells
    }

    /// The centre of `cell`.
    pub fn centre(&self, cell: UVec3) -> Vec3 {
        self.origin + (cell.as_vec3() + 0.5) * self.cell_size
    }

    /// The flow of `cell`, if it is in the grid.
    pub fn get(&self, cell: UVec3) -> Option<Vec3> {
        self.index(cell).map(|i| self.flow[i])
    }

    /// Sets the flow of `cell`; returns whether it is in the grid. A non-finite flow counts
    /// as none.
    pub fn set(&mut self, cell: UVec3, flow: Vec3) -> bool {
        let Some(i) = self.index(cell) else {
            return false;
        };
        self.flow[i] = if flow.is_finite() { flow } else { Vec3::ZERO };
        true
    }

    /// Whether the grid is usable: a finite origin and a positive, finite cell size.
    pub fn is_valid(&self) -> bool {
        self.origin.is_finite() && self.cell_size.is_finite() && self.cell_size > 0.0
    }

    /// The flow at `point`, interpolated between the centres of the cells around it (linearly
    /// along each axis; held flat in the outer half cells), or `None` outside the grid or for
    /// an invalid one.
    pub fn sample(&self, point: Vec3) -> Option<Vec3> {
        if !self.is_valid() || !point.is_finite() {
            return None;
        }
        let local = (point - self.origin) / self.cell_size;
        let size = self.cells.as_vec3();
        if local.cmplt(Vec3::ZERO).any() || local.cmpgt(size).any() {
            return None;
        }
        // Coordinates in cell centres: cell k's centre is at k.
        let at = (local - 0.5).clamp(Vec3::ZERO, size - 1.0);
        let low = at.floor().as_uvec3().min(self.cells - 1);
        let high = (low + 1).min(self.cells - 1);
        let t = at - low.as_vec3();
        let mut flow = Vec3::ZERO;
        for corner in 0..8_u32 {
            let pick = UVec3::new(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1);
            let cell = UVec3::select(pick.cmpeq(UVec3::ONE), high, low);
            let weight = Vec3::select(pick.cmpeq(UVec3::ONE), t, 1.0 - t).element_product();
            if weight > 0.0 {
                flow += self.flow[self.index(cell)?] * weight;
            }
        }
        Some(flow)
    }

    fn index(&self, cell: UVec3) -> Option<usize> {
        cell.cmplt(self.cells).all().then(|| {
            let c = self.cells;
            (cell.x + c.x * (cell.y + c.y * cell.z)) as usize
        })
    }
}
