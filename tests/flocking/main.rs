//! Headless behaviour tests of the plugin: each one measures what a rule should do.

mod bad_input;
mod behaviours;
mod boundaries;
mod collisions;
mod config;
mod copy;
mod creatures;
mod determinism;
mod flocks;
mod hostile;
mod lab;
mod lab_reference;
mod lockstep;
mod obstacles;
mod planning;
mod planning_big_maps;
mod planning_queue;
mod predators;
mod presets;
mod queries;
mod rules;
mod schedule;
mod speeds;
mod squads;
mod support;
mod terrain;
