//! The pedestrian section's plots: the fundamental diagram against Weidmann's curve, and the
//! bottleneck's specific flow against its width and the experiments' range.

use flock_validation::fundamental_diagram::{tolerance, weidmann_speed};
use plotters::prelude::*;

/// A mode's measurements as a plot draws them: its name and its points.
pub(crate) struct Curve {
    pub(crate) name: String,
    pub(crate) points: Vec<(f64, f64)>,
}

/// A colour per mode, in the report's order.
const COLOURS: [RGBColor; 4] = [
    RGBColor(200, 30, 30),
    RGBColor(30, 90, 200),
    RGBColor(30, 150, 60),
    RGBColor(120, 120, 120),
];

/// Draws `points` joined, with dots, in `colour`, labelled `name`.
fn series<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    points: Vec<(f64, f64)>,
    style: ShapeStyle,
    name: String,
) {
    chart
        .draw_series(LineSeries::new(points.clone(), style))
        .expect("series")
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    let dot = style.color.filled();
    chart
        .draw_series(points.into_iter().map(|p| Circle::new(p, 3, dot)))
        .expect("points");
}

/// Mean speed against density: Weidmann's curve with its tolerance, each of the `modes`, and
/// the `recipe`'s crowd of one speed in a thin line.
pub(crate) fn plot_fundamental_diagram(modes: Vec<Curve>, recipe: Curve, path: &str) {
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).expect("fill");
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "RiMEA test 4: speed against density (20 ticks/s)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..5.5_f64, 0.0..1.6_f64)
        .expect("chart");
    chart
        .configure_mesh()
        .x_desc("people per m²")
        .y_desc("mean speed, m/s")
        .draw()
        .expect("mesh");
    let curve = |offset: f32| -> Vec<(f64, f64)> {
        (4..=55)
            .map(|k| {
                let d = k as f32 / 10.0;
                let speed = weidmann_speed(d) + offset * tolerance(d);
                (d as f64, speed.max(0.0) as f64)
            })
            .collect()
    };
    let reference = BLACK.stroke_width(3);
    chart
        .draw_series(LineSeries::new(curve(0.0), reference))
        .expect("curve")
        .label("Weidmann (1993)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], reference));
    let band = BLACK.mix(0.4).stroke_width(1);
    for side in [-1.0, 1.0] {
        chart
            .draw_series(LineSeries::new(curve(side), band))
            .expect("band");
    }
    for (curve, colour) in modes.into_iter().zip(COLOURS) {
        series(&mut chart, curve.points, colour.stroke_width(2), curve.name);
    }
    let thin = COLOURS[0].mix(0.5).stroke_width(1);
    series(&mut chart, recipe.points, thin, recipe.name);
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerLeft)
        .draw()
        .expect("legend");
    root.present().expect("write svg");
}

/// Specific flow against width: the experiments' range and each of the `modes`.
pub(crate) fn plot_bottleneck(modes: Vec<Curve>, path: &str) {
    // Tall enough for every flow measured (ORCA's wide doors pass over twice the range).
    let highest = (modes.iter())
        .flat_map(|curve| curve.points.iter().map(|&(_, flow)| flow))
        .fold(0.0_f64, f64::max);
    let top = (1.1 * highest).max(2.6);
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).expect("fill");
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Bottleneck: specific flow against width (20 ticks/s)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.8..2.6_f64, 0.0..top)
        .expect("chart");
    chart
        .configure_mesh()
        .x_desc("width, m")
        .y_desc("people per metre per second (median of three turns)")
        .draw()
        .expect("mesh");
    let band = BLACK.stroke_width(2);
    for (k, level) in [1.5, 2.2].into_iter().enumerate() {
        let line = chart
            .draw_series(LineSeries::new(vec![(1.2, level), (2.5, level)], band))
            .expect("range");
        if k == 0 {
            line.label("experiments' range, 1.2-2.5 m (Seyfried 2009, Liao 2014)")
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], band));
        }
    }
    for (curve, colour) in modes.into_iter().zip(COLOURS) {
        series(&mut chart, curve.points, colour.stroke_width(2), curve.name);
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .expect("legend");
    root.present().expect("write svg");
}
