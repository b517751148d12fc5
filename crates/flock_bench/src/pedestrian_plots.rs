//! The pedestrian section's plots: the fundamental diagram against Weidmann's curve, and the
//! bottleneck's specific flow against its width and the experiments' range.

use flock_validation::bottleneck::WIDTHS;
use flock_validation::fundamental_diagram::{DENSITIES, tolerance, weidmann_speed};
use plotters::prelude::*;

use crate::pedestrians::ModeReport;

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

/// Mean speed against density: Weidmann's curve with its tolerance, and each mode's crowd of
/// spread speeds (and the recipe's of one speed, dashed in thin).
pub(crate) fn plot_fundamental_diagram(reports: &[ModeReport], path: &str) {
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
    for (report, colour) in reports.iter().zip(COLOURS) {
        let points = (DENSITIES.iter().zip(&report.speeds))
            .map(|(&d, &(spread, _))| (d as f64, spread as f64))
            .collect();
        let name = format!("{}, spread speeds", report.mode.name);
        series(&mut chart, points, colour.stroke_width(2), name);
    }
    if let Some(recipe) = reports.first() {
        let points = (DENSITIES.iter().zip(&recipe.speeds))
            .map(|(&d, &(_, one))| (d as f64, one as f64))
            .collect();
        let name = format!("{}, one speed", recipe.mode.name);
        series(
            &mut chart,
            points,
            COLOURS[0].mix(0.5).stroke_width(1),
            name,
        );
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .expect("legend");
    root.present().expect("write svg");
}

/// Specific flow against width: the experiments' range and each mode's median flow.
pub(crate) fn plot_bottleneck(reports: &[ModeReport], path: &str) {
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
        .build_cartesian_2d(0.8..2.6_f64, 0.0..2.6_f64)
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
    for (report, colour) in reports.iter().zip(COLOURS) {
        let points = (WIDTHS.iter().zip(&report.flows))
            .map(|(&w, &(flow, _))| (w as f64, (flow / w) as f64))
            .collect();
        series(
            &mut chart,
            points,
            colour.stroke_width(2),
            report.mode.name.to_string(),
        );
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
