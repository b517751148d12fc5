//! Flocks and crowds for [Bevy](https://bevy.org): birds, fish, zombies, drone formations.
//!
//! Add [`FlockingPlugins`], give entities the [`Agent`] component, and they flock by Reynolds'
//! (1987) three rules (separation, alignment, cohesion) with limits on force and speed, a field of
//! view, target seeking with arrival, and walls or wrap-around. Neighbours are found through a
//! uniform grid rebuilt every tick, so the cost grows with the number of agents, not its square.
//!
//! # Getting started
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_flock::prelude::*;
//!
//! fn spawn_flock(mut commands: Commands) {
//!     // A flock entity holds the tuning its members share.
//!     let birds = commands
//!         .spawn((
//!             Flock,
//!             Name::new("Birds"),
//!             Boundary::walls(Vec3::splat(-30.0), Vec3::splat(30.0), 5.0),
//!         ))
//!         .id();
//!     for i in 0..100 {
//!         let angle = i as f32 * 0.7;
//!         commands.spawn((
//!             Agent,
//!             InFlock(birds),
//!             Transform::from_xyz(
//!                 ops::cos(angle) * 10.0,
//!                 (i % 10) as f32,
//!                 ops::sin(angle) * 10.0,
//!             ),
//!             Velocity(Vec3::new(-ops::sin(angle), 0.0, ops::cos(angle)) * 3.0),
//!         ));
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, FlockingPlugins::default()))
//!     .add_systems(Startup, spawn_flock);
//! app.update();
//! ```
//!
//! Each flock's tuning lives in components on its [`Flock`] entity: [`FlockWeights`],
//! [`SteeringLimits`], [`Perception`] and [`Boundary`] (all four at once as a [`FlockTuning`]
//! bundle, e.g. [`FlockTuning::flocking_lab`]). Edit them and every member follows. The same
//! components on an agent override its flock's for that agent only. Agents without
//! [`InFlock`] belong to the [`DefaultFlock`].
//!
//! Members align and cohere only with their own flock; every agent separates from every other,
//! so two flocks cross without merging or colliding.
//!
//! For a 2D game use [`FlockingPlugins::planar`]: agents stay on the XY plane and turn about Z
//! with their local `+X` facing their velocity. In 3D, their local forward (`-Z`) does.
//!
//! The plane can have floors stacked over it (a bridge over a street, the storeys of a
//! building): an agent, [`Predator`] or [`Obstacle`] with [`OnFloor`] is on that floor, and
//! meets only what is on its own; an agent moves between floors when the game changes its
//! `OnFloor` (at a stair's top, say). Agents are written back on the plane (z 0), for the game
//! to lift to their floor's height.
//!
//! Creatures and vehicles that cannot turn on the spot set [`SteeringLimits::max_turn_rate`]
//! (degrees per second): their heading then drives their motion and turns toward where the
//! steering points at most that fast, turning round rather than reversing.
//!
//! # Obstacles
//!
//! Give any entity an [`Obstacle`] (sphere, box, half-space or capsule, placed and scaled by
//! its transform) and agents steer around it: each casts a ball ahead as far as a look-ahead
//! that grows with its speed ([`FlockingConfig::avoidance`]) and turns to the nearest clear
//! direction, which it holds for half a second (longer while its target stays hidden behind
//! the obstacle and it makes way, so that it follows a wall to its end). No part of an agent's
//! body (half its [`Perception::collision_distance`]) ever ends a tick inside an obstacle: a
//! move that would cross a surface stops at it and slides along it, however fast the agent,
//! and a gap narrower than the body is closed to it. An agent standing pressed against a wall
//! slides along it toward a target beyond it at a slant (a door beside it). With the `bevy_rapier3d` feature, rapier colliders marked `Obstacle::Collider`
//! are obstacles too (see `bevy_flock::rapier`).
//!
//! Avoidance costs little where obstacles are few: an agent with no obstacle within its
//! look-ahead skips the casts (a lookup of its cell in the obstacles' grid, or one tree query
//! that finds nothing in rapier), so the work follows the agents near obstacles, not the
//! crowd. BENCHMARKS.md gives the cost per agent with 0, 10 and 100 obstacles.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_flock::prelude::*;
//!
//! fn spawn_pillar(mut commands: Commands) {
//!     commands.spawn((
//!         Obstacle::Capsule { half_length: 10.0, radius: 1.5 },
//!         Transform::from_xyz(0.0, 10.0, 0.0),
//!     ));
//! }
//! # let mut app = App::new();
//! # app.add_plugins((MinimalPlugins, TransformPlugin, FlockingPlugins::default()))
//! #     .add_systems(Startup, spawn_pillar);
//! # app.update();
//! ```
//!
//! # Plugins and scheduling
//!
//! [`FlockingPlugins`] is a plugin group: the core [`FlockingPlugin`] (components, the tick,
//! the write-back), [`BuiltInObstaclesPlugin`], [`BehaviourStatesPlugin`], [`FlowFieldsPlugin`]
//! and [`FlockDiagnosticsPlugin`]; leave one out with
//! `FlockingPlugins::default().build().disable::<FlowFieldsPlugin>()`. RTS movement is opt in:
//! [`SquadsPlugin`], and `TerrainPlugin` with the `pathfinding` feature.
//!
//! The plugins run in `FixedUpdate` by default (change it with
//! [`FlockingPlugins::in_schedule`]) as the chained sets of [`FlockingSystems`]:
//! `First` → `Prepare` → `NeighbourLookup` → `ForceAccumulation` → `Avoidance` →
//! `Integration` → `Last`; each set's documentation says what runs in it. Systems of your own
//! go in the hook sets or between stages. Between `NeighbourLookup` and `Integration` the
//! [`FlockSimulation`] resource holds every agent's state for the tick and takes extra
//! forces:
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_flock::prelude::*;
//!
//! /// A steady wind that pushes every agent east.
//! fn wind(mut sim: ResMut<FlockSimulation>) {
//!     let agents = sim.entities().to_vec();
//!     for agent in agents {
//!         sim.add_force(agent, Vec3::X * 2.0);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, FlockingPlugins::default()))
//!     .add_systems(
//!         FixedUpdate,
//!         wind.after(FlockingSystems::ForceAccumulation)
//!             .before(FlockingSystems::Integration),
//!     );
//! ```
//!
//! # More steering behaviours
//!
//! Every behaviour has a weight in [`FlockWeights`] (zero switches it off) and works on any
//! agent:
//!
//! - **Predators**: entities with a [`Predator`] radius are fled (`flee`); a moving one is
//!   evaded, run from where it will be. [`Target::Pursue`] chases where a moving entity will be.
//! - **Leader following**: [`FollowLeader`] keeps an agent station behind another entity,
//!   matching its velocity, and out of the path ahead of it (`leader`).
//! - **Wander**: smooth random changes of heading, seeded by [`FlockingConfig::seed`] so that
//!   runs repeat (`wander`, `wander_rate`).
//! - **Flow fields and paths**: a [`FlowField`] on a flock is a grid of directions its members
//!   steer along; [`FlockSimulation::set_flow`] feeds one agent a flow of the game's own (a
//!   path, a current) each tick (`flow`).
//! - **Noise**: Vicsek's angular noise (`noise`): each velocity turned by a seeded random
//!   angle every tick.
//!
//! [`FlockWeights::blending`] picks how the behaviours share the max force: a weighted sum
//! (the default; fleeing and sidestepping are served first), Reynolds' prioritised allocation
//! ([`BlendMode::Prioritised`]), where separation, walls, the leader, the target, the flow,
//! alignment, cohesion and wander each take what they need in that order until the budget is
//! spent, so that under a tight budget the urgent needs win, or [`BlendMode::RuleLimitsOnly`],
//! where each behaviour is cut to the max force on its own and their weighted sum is not cut
//! again (the flocking lab's blending).
//!
//! # Crowds
//!
//! Separation pushes neighbours apart after they come close; crowds whose bodies should not
//! meet have two stronger tools:
//!
//! - **Sidestepping**: [`FlockWeights::collision_avoidance`] makes each agent predict the first
//!   contact with its neighbours under constant velocities, [`Perception::collision_horizon`]
//!   seconds ahead, and sidestep the soonest, keeping right when head on.
//! - **Velocity obstacles**: [`Perception::velocity_obstacles`] replaces the velocity the rules
//!   ask for with the nearest collision-free one (optimal reciprocal collision avoidance, van
//!   den Berg et al. 2011). [`VelocityObstacles::Reciprocal`] lets bodies overlap rarely and
//!   hardly (1,000 agents swapping places across a circle overlap by at most 0.1% of the
//!   radius at 64 ticks a second); [`VelocityObstacles::Solid`] never lets two end a tick inside
//!   each other, at the price of jams where a dense crowd has no room. BENCHMARKS.md measures
//!   both in circle swaps, crossing streams, a door and a dense crowd, and what the step costs.
//!
//! Bodies may differ in size ([`Perception::collision_distance`], per agent or per flock); of
//! two agents, the one of lower [`Perception::avoidance_priority`] gives most of the way, and
//! [`Perception::avoidance_layers`] with [`Perception::avoidance_mask`] choose who avoids
//! whom. `examples/crowd_plaza` switches between the modes live and counts overlaps.
//!
//! [`FlockTuning::pedestrian`] is people in metres and seconds: bodies 0.4 m across, a free
//! walking speed of 1.34 m/s (Weidmann 1993) reached within 0.5 s, reciprocal velocity
//! obstacles, no flocking rules, and a time gap of 0.6 s to the body ahead
//! ([`Perception::time_gap`]), so that a crowd slows as it packs. A [`SpeedFactor`] gives an
//! agent its own speed within its flock's tuning ([`SpeedFactor::walking`] draws Weidmann's
//! spread of walking speeds), the faster overtake the slower where there is room, and a queue
//! sets off as the one ahead does. The
//! repository's validation tests (the `flock_validation` crate) hold it to RiMEA's tests: one
//! person walks the 40 m test corridor in 30.1 s (the guideline asks 26 to 34); a crowd of
//! Weidmann's spread of speeds, started in no order, walks within 0.15 m/s or 20% of his curve
//! at 0.5 to 5 people per m²; 20 people turn a corner and 1,000 leave a hall, none through a
//! wall; 120 people pass doors of 0.9 to 2.5 m, the flow rising with the width, from 1.6 m
//! within the 1.5 to 2.2 people per metre per second of the experiments (under them at narrower
//! doors: BENCHMARKS.md has the table).
//!
//! # Spatial queries
//!
//! The neighbour grid answers game code too: [`FlockSimulation::agents_within`],
//! [`FlockSimulation::k_nearest`] and [`FlockSimulation::nearest`] find agents around a point,
//! with a filter (by flock, say), from the grid rebuilt this tick. On the plane, the point's z
//! picks the floor searched (see [`OnFloor`]).
//!
//! # Bad input and determinism
//!
//! NaN, infinite or out-of-range values (tuning, positions, velocities, rotations, obstacles,
//! predators, boundaries with no room, an agent targeting or following itself) are replaced or
//! ignored, reported once per entity and field (a log line and an [`InputCorrected`] message),
//! and never reach a neighbour. The same setup gives bit-identical results on any thread
//! count and SIMD path: the order of every sum is fixed, randomness is seeded
//! ([`FlockingConfig::seed`]) and the one transcendental function comes from `libm`.
//!
//! For lockstep multiplayer, give every agent an [`AgentId`] (the same on every peer) and
//! compare [`FlockSimulation::checksum`] between peers after each tick: with ids, the crowd's
//! order (which draws are whose, the order of each sum) follows the ids, not entity bits or the
//! order in which Bevy stores the agents.
//!
//! With the `snapshot` feature, `FlockSnapshot::take` saves what the next tick depends on (each
//! agent's transform, velocity, steering memory and target, by id, the kernel's tick count,
//! and the orders in flight: destinations, paths, formations, the terrain and the path
//! planner's queue and searches) and `FlockSnapshot::restore` puts it back, into the same world (a rollback) or into a
//! new one where the game has spawned the same agents (a saved game, a peer that joins): the
//! run then continues bit for bit. `to_bytes` and `from_bytes` write and read it with postcard.
//!
//! # How a rule becomes a force
//!
//! [`FlockWeights::style`] picks each rule's formula. In [`RuleStyle::Vector`] (the default)
//! the rule's vector is the force: separation sums `(p - pj) / d^2` over the neighbours closer
//! than the separation radius, alignment is `mean(vj) - v`, cohesion `mean(pj) - p`. In
//! [`RuleStyle::DesiredVelocity`] (Reynolds 1999) each rule names a direction (separation
//! `sum unit(p - pj) / d^2`, alignment the neighbours' mean velocity, cohesion toward their
//! centroid) and asks for the change from `v` to max speed that way, made within
//! [`SteeringLimits::response_time`] and at most the max force: `(desired - v) /
//! response_time`, cut to `max_force`. Seek, flee, pursuit, the leader, wander and flows
//! steer this way in both styles.
//!
//! # Vicsek's model
//!
//! [`FlockTuning::vicsek`]`(eta, tick)` tunes a flock as the self-propelled particles of
//! Vicsek et al. (1995): radius 1, a constant speed of 0.03 per tick, each agent taking the
//! mean heading of itself and its neighbours every tick ([`Perception::counts_itself`]), then
//! turned at random by up to `eta / 2`. Put the agents in a periodic box with a
//! [`Boundary::Wrap`] (10 x 10 for 400 agents is the paper's density 4) and pass the
//! schedule's timestep as `tick`. Over the second half of 2,000 steps the order parameter
//! ([`FlockMetrics::polarisation`]) is then 0.999 at `eta` = 0.1, 0.79 at 2 and 0.06 at 5,
//! the curve of the paper's figure 2a.
//!
//! # Behaviour states and events
//!
//! [`BehaviourStates`] holds named sets of weights (idle, fleeing, regrouping...) on an agent
//! or a flock; `switch_to("fleeing")` makes that set its [`FlockWeights`] from the next tick,
//! without respawning anything. Agents trigger [`TargetReached`] when they come within
//! [`SteeringLimits::reach_radius`] of their target, [`AgentStuck`] when they have made no
//! progress toward it for [`FlockingConfig::stuck_after`], and [`LeaderLost`] when their
//! leader is gone; observe them to switch states or hand out the next waypoint:
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_flock::prelude::*;
//!
//! /// Waypoints an agent visits in turn.
//! #[derive(Component)]
//! struct Patrol(Vec<Vec3>, usize);
//!
//! fn next_waypoint(reached: On<TargetReached>, mut agents: Query<(&mut Patrol, &mut Target)>) {
//!     if let Ok((mut patrol, mut target)) = agents.get_mut(reached.entity) {
//!         patrol.1 = (patrol.1 + 1) % patrol.0.len();
//!         *target = Target::Point(patrol.0[patrol.1]);
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, FlockingPlugins::default()))
//!     .add_observer(next_waypoint);
//! let corners = vec![Vec3::ZERO, Vec3::X * 10.0, Vec3::Z * 10.0];
//! app.world_mut()
//!     .spawn((Agent, Target::Point(corners[0]), Patrol(corners, 0)));
//! app.update();
//! ```
//!
//! # Level of detail
//!
//! For very large crowds, set [`FlockingConfig::level_of_detail`] and mark the camera with
//! [`DetailFocus`]: agents further than the near radius compute their steering only every
//! k-th tick (staggered, so each tick does an even share) and keep steering with their last
//! force in between, still moving every tick. The force pass then does about
//! `near + far / k` of its work; BENCHMARKS.md measures it on 50,000 and 100,000 agents.
//!
//! # Terrain, paths and squads
//!
//! For top-down games on the plane, add [`SquadsPlugin`] and, with the `pathfinding` feature,
//! `TerrainPlugin` (use [`FlockTuning::squad`] as a start). A `Terrain` resource is a grid of
//! walkable and unwalkable tiles: the unwalkable ones are obstacles agents steer round and
//! never enter. A [`Destination`] on an agent sends it there along an A* path across the tiles
//! (shortened by line of sight, planned again when a new wall crosses it; straight without a
//! terrain); on a [`Flock`] it sends the flock as a squad, which plans one path for all its
//! members, each going on to its own place in a [`Formation`] round the point, where it
//! settles instead of jostling for the point with the others. The `PathPlanner` resource
//! spreads the searches over ticks, at most `tiles_per_tick` tiles expanded a tick (5,000 by
//! default), so that a big map or a crowd sent at once never stalls a tick; a unit waiting for
//! its path says so in its [`PlannedPath`]'s `status`, and one with none gets a
//! [`PathNotFound`] event. Units with a [`Combatant`] (team, radius,
//! weapon range) keep a standoff from enemy units: at their weapon's range, or, when
//! they cannot attack, outside the enemy's range plus 5 (`FlockWeights::standoff`). For
//! comparison, a [`PotentialField`] on a squad steers its members by a potential field instead:
//! a potential summed over every wall tile, squad-mate and enemy (BENCHMARKS.md compares the
//! cost as maps grow).
//!
//! With the `navmesh` feature, add `NavMeshPlugin` and insert a `NavMesh`, built from the
//! outline of the walkable ground and the obstacles inside it: destinations are then planned
//! across the mesh instead of the tiles, as shortest paths that bend only at obstacles'
//! corners and keep a clearance from them (Polyanya, Cui, Harabor and Grastien 2017), at most
//! `NavMeshPlanner::paths_per_tick` a tick (4 by default; units sent together to one point
//! share the first path found). The mesh's edges are walls to the crowd: each body, whatever
//! its radius, is kept on the ground by the velocity obstacles, the shape casts and the
//! integration, with no obstacle given twice. Replace the mesh when the ground changes and
//! every path is planned again. Ground that is not flat (`NavMesh::with_height`: a ramp, a
//! hill, a bridge's arch) puts each agent on its surface after every tick; paths, walls and
//! the rules stay in the plane. Ground on floors over one another (`NavMesh::from_floors`: a
//! street, and a ramp over it to a roof terrace) has each floor's walls on its [`OnFloor`],
//! plans paths between floors through the joins where they meet, and moves an agent that
//! walks across a join to the other floor.
//! `tools/navmesh-crates` measures why the plugin plans with `polyanya` rather than
//! `landmass`.
//!
//! # Presets and the inspector
//!
//! With the `presets` feature, add `FlockPresetsPlugin` and give a flock
//! `UsePreset(asset_server.load("presets/fish.preset.ron"))`: the file's weights, limits and
//! perception tune the flock as soon as it loads and again whenever it changes (with Bevy's
//! `file_watcher` feature). A file that does not parse, or misspells a field, is logged once
//! and listed in `PresetLoadErrors`; the flock keeps its values. With the `bevy_egui`
//! feature, `inspector::FlockInspectorPlugin` adds a panel that edits any flock live, applies
//! and saves presets, and plots polarisation and neighbours; `examples/birds_3d.rs` shows
//! both.
//!
//! # Diagnostics
//!
//! [`FlockMetrics`] holds this tick's polarisation (order parameter), mean neighbours per
//! agent, nearest-neighbour distances and step time; the same figures are Bevy diagnostics
//! under the paths in [`diagnostics`]. Values the plugin had to correct (NaN, negative radii,
//! a minimum speed above the maximum...) are logged once per entity and field and sent as
//! [`InputCorrected`] messages.
//!
//! # Feature flags
//!
//! | feature | what it adds |
//! |---|---|
//! | `bevy_gizmos` | `FlockGizmosPlugin`: velocity and perception radii drawn with gizmos |
//! | `bevy_rapier3d` | `bevy_flock::rapier`: agents avoid bevy_rapier3d colliders marked `Obstacle::Collider` |
//! | `bevy_egui` | `bevy_flock::inspector`: an in-game panel to pick a flock, tune it live, apply and save presets, and plot its metrics |
//! | `presets` | `FlockPresetsPlugin`: flock tunings as `*.preset.ron` assets, applied through `UsePreset` and again when the file changes (hot reload with Bevy's `file_watcher`); six ship in `assets/presets/` |
//! | `pathfinding` | `TerrainPlugin` and `Terrain`: tile maps whose walls agents avoid, and A* paths across them for `SquadsPlugin`'s destinations |
//! | `navmesh` | `NavMeshPlugin` and `NavMesh`: navigation meshes and the shortest paths across them for `SquadsPlugin`'s destinations (implies `pathfinding`) |
//! | `examples` | the render stack for the windowed examples (not needed by games) |
//!
//! # FAQ
//!
//! **My agents overlap.** Raise `FlockWeights::separation` or `Perception::separation_radius`;
//! for crowds whose bodies must never overlap, set `Perception::velocity_obstacles` to
//! `VelocityObstacles::Solid` (bodies of `Perception::collision_distance`).
//! **Important units should push through idle ones.** Give them a higher
//! `Perception::avoidance_priority` (a `Perception` on the agent overrides its flock's): of two
//! agents, the lower priority gives most of the way.
//! **The flock falls apart.** Raise `cohesion` or `neighbour_radius`.
//! **They all freeze into one direction.** Lower `alignment`.
//! **They jitter or turn abruptly.** Lower `SteeringLimits::max_force`.
//! **Two agents meet head on and walk through each other.** Separation pushes straight back,
//! too late. Set `FlockWeights::collision_avoidance` to 1: agents then predict collisions
//! `Perception::collision_horizon` seconds ahead and sidestep (keeping right when head on),
//! for about a fifth more force-pass time.
//! **My world is in pixels and separation does nothing.** Use
//! [`RuleStyle::DesiredVelocity`], which does not depend on the world's scale.

#![cfg_attr(docsrs, feature(doc_cfg))]

/// The in-game inspector panel (feature `bevy_egui`): [`inspector::FlockInspectorPlugin`].
#[cfg(feature = "bevy_egui")]
pub use bevy_flock_inspector as inspector;
pub use bevy_flock_plugin::*;
/// Obstacle avoidance against bevy_rapier3d colliders.
#[cfg(feature = "bevy_rapier3d")]
pub use bevy_flock_rapier as rapier;
/// The engine-agnostic kernel: buffers, grid, rules, metrics.
pub use flock_core as core;

/// Everything a game needs: `use bevy_flock::prelude::*;`.
pub mod prelude {
    pub use bevy_flock_plugin::prelude::*;
}
