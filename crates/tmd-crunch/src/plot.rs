//! An SVG plot of the per-block maximum error against x (as in figures 3 and 5 of Dukhan and Vuduc, "DoubleCrunch", SC 2015): one
//! point per block, x positions by ordinal (so that every binade gets its share), a log scale
//! in ulps when the errors span more than a factor 10.

use crate::checkpoint::BlockRecord;
use crate::format::CrunchFormat;
use std::fmt::Write;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 480.0;
const MARGIN_LEFT: f64 = 80.0;
const MARGIN_BOTTOM: f64 = 60.0;
const MARGIN_TOP: f64 = 40.0;
const MARGIN_RIGHT: f64 = 20.0;
/// Font size of the x tick labels: a binary64 label (`-0x1.fffffffffffffp+1023`, 23
/// characters) is about 130 px wide at 10 px, less than the 200 px between two ticks.
const X_LABEL_FONT: f64 = 10.0;
/// At most this many labelled powers of ten on a log-scale y axis.
const MAX_LOG_TICKS: i64 = 8;

/// Renders the plot; `title` names the target and range.
pub fn svg(title: &str, fmt: CrunchFormat, blocks: &[&BlockRecord]) -> String {
    let points: Vec<(i64, f64)> = blocks
        .iter()
        .filter(|b| b.summary.argmax.is_some())
        .map(|b| (b.first, b.summary.max_ulp))
        .collect();
    let (first, last) = match (blocks.first(), blocks.last()) {
        (Some(a), Some(b)) => (a.first, b.end),
        _ => (0, 1),
    };
    let ymax = points.iter().map(|p| p.1).fold(0.0f64, f64::max).max(1e-3);
    let ymin_pos = points
        .iter()
        .map(|p| p.1)
        .filter(|&v| v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let log_scale = ymin_pos.is_finite() && ymax / ymin_pos > 10.0;
    let plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
    let plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
    let (lo_y, hi_y) = if log_scale {
        (ymin_pos.log10().floor(), ymax.log10().ceil())
    } else {
        (0.0, ymax * 1.05)
    };
    let ypos = |v: f64| {
        let t = if log_scale {
            (v.max(10f64.powf(lo_y)).log10() - lo_y) / (hi_y - lo_y)
        } else {
            v / hi_y
        };
        MARGIN_TOP + plot_h * (1.0 - t)
    };
    // In i128: a run over all of binary64 spans 2^64 - 2^53 ordinals, more than i64 holds.
    let span = (last as i128 - first as i128).max(1) as f64;
    let xpos = |o: i64| MARGIN_LEFT + plot_w * (o as i128 - first as i128) as f64 / span;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
    let _ = writeln!(
        s,
        r#"<rect x="{MARGIN_LEFT}" y="{MARGIN_TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
    );
    let y_ticks = if log_scale {
        log_ticks(lo_y as i64, hi_y as i64)
    } else {
        linear_ticks(hi_y)
    };
    for (y_val, label) in y_ticks {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.2}" text-anchor="end">{label}</text>"#,
            MARGIN_LEFT - 6.0,
            ypos(y_val) + 4.0,
        );
    }
    let mut x_ticks: Vec<(i32, i64)> = (0..=4)
        .map(|i| {
            let t = i as f64 / 4.0;
            let o = first as i128 + ((last as i128 - first as i128) as f64 * t) as i128;
            (i, o as i64)
        })
        .collect();
    // A range of fewer than 5 numbers would label some twice.
    x_ticks.dedup_by_key(|t| t.1);
    for (i, o) in x_ticks {
        let x = xpos(o);
        let label = fmt.hex(fmt.from_ordinal(o.min(fmt.max_ordinal())));
        // The end labels grow inwards, so that neither is cut off at the picture's edge.
        let anchor = match i {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" text-anchor="{anchor}" font-size="{X_LABEL_FONT}">{}</text>"#,
            HEIGHT - MARGIN_BOTTOM + 18.0,
            escape(&label)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">x (by ordinal)</text>"#,
        MARGIN_LEFT + plot_w / 2.0,
        HEIGHT - 12.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{}" transform="rotate(-90 16 {})" text-anchor="middle">max error per block (ulps{})</text>"#,
        MARGIN_TOP + plot_h / 2.0,
        MARGIN_TOP + plot_h / 2.0,
        if log_scale { ", log scale" } else { "" }
    );
    for (o, v) in &points {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.2}" cy="{:.2}" r="1.5" fill="#1f5fa8"/>"##,
            xpos(*o),
            ypos(*v)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Ticks of a log-scale axis from 10^lo to 10^hi: the powers of ten, every `step`-th one
/// when there are more than [`MAX_LOG_TICKS`], each labelled by its own exponent, so no two
/// labels are equal.
fn log_ticks(lo: i64, hi: i64) -> Vec<(f64, String)> {
    let step = ((hi - lo) + MAX_LOG_TICKS - 1) / MAX_LOG_TICKS;
    let step = step.max(1);
    (lo..=hi)
        .filter(|k| (k - lo) % step == 0)
        .map(|k| {
            let label = match k {
                0 => "1".to_string(),
                1 => "10".to_string(),
                2 => "100".to_string(),
                _ => format!("1e{k}"),
            };
            (10f64.powi(k as i32), label)
        })
        .collect()
}

/// Five ticks from 0 to `top`, with as many decimals as the step between them needs to tell
/// them apart.
fn linear_ticks(top: f64) -> Vec<(f64, String)> {
    let step = top / 4.0;
    let decimals = (1 - step.log10().floor() as i64).clamp(0, 12) as usize;
    (0..=4)
        .map(|i| {
            let v = step * i as f64;
            (v, format!("{v:.decimals$}"))
        })
        .collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::Summary;

    /// A `<text>` element of the plot: where it is anchored and what it says.
    struct Label {
        x: f64,
        y: f64,
        anchor: String,
        font_size: f64,
        text: String,
    }

    fn attribute(tag: &str, name: &str) -> Option<String> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        let len = tag[start..].find('"')?;
        Some(tag[start..start + len].to_string())
    }

    fn labels(svg: &str) -> Vec<Label> {
        svg.lines()
            .filter(|l| l.starts_with("<text ") && !l.contains("transform="))
            .map(|l| {
                let open_end = l.find('>').unwrap();
                let tag = &l[..open_end];
                let text = &l[open_end + 1..l.rfind("</text>").unwrap()];
                Label {
                    x: attribute(tag, "x").unwrap().parse().unwrap(),
                    y: attribute(tag, "y").unwrap().parse().unwrap(),
                    anchor: attribute(tag, "text-anchor").unwrap_or_else(|| "start".into()),
                    font_size: attribute(tag, "font-size").map_or(12.0, |f| f.parse().unwrap()),
                    text: text.to_string(),
                }
            })
            .collect()
    }

    fn view_box(svg: &str) -> (f64, f64) {
        let tag = svg.lines().next().unwrap();
        let vb = attribute(tag, "viewBox").expect("a viewBox");
        let v: Vec<f64> = vb.split(' ').map(|t| t.parse().unwrap()).collect();
        assert_eq!((v[0], v[1]), (0.0, 0.0));
        (v[2], v[3])
    }

    fn block(first: i64, end: i64, max_ulp: f64) -> BlockRecord {
        BlockRecord {
            index: first,
            first,
            end,
            seconds: 1.0,
            summary: Summary {
                max_ulp,
                argmax: Some(first),
                ..Summary::default()
            },
        }
    }

    /// A plot over all of binary64 (the widest x labels) with errors from 2^-30 to 3 ulps,
    /// or from 0 to `linear_top`.
    fn plot(errors: &[f64]) -> String {
        let fmt = CrunchFormat::Binary64;
        let max = fmt.max_ordinal();
        let n = errors.len() as i64;
        let blocks: Vec<BlockRecord> = errors
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                let at = |i: i64| (-max as i128 + 2 * max as i128 / n as i128 * i as i128) as i64;
                block(at(i as i64), at(i as i64 + 1), e)
            })
            .collect();
        let refs: Vec<&BlockRecord> = blocks.iter().collect();
        svg("exp binary64", fmt, &refs)
    }

    /// Tick labels are distinct, and every label lies inside the viewBox with a conservative
    /// 0.6 em per character (sans-serif digits and letters are narrower).
    fn assert_readable(svg: &str) {
        let (width, height) = view_box(svg);
        let all = labels(svg);
        for l in &all {
            let w = 0.6 * l.font_size * l.text.chars().count() as f64;
            let (left, right) = match l.anchor.as_str() {
                "start" => (l.x, l.x + w),
                "end" => (l.x - w, l.x),
                _ => (l.x - w / 2.0, l.x + w / 2.0),
            };
            assert!(
                left >= 0.0 && right <= width && l.y <= height && l.y >= l.font_size,
                "label '{}' spans [{left}, {right}] at y {}",
                l.text,
                l.y
            );
        }
        let y_ticks: Vec<&str> = all
            .iter()
            .filter(|l| l.x == MARGIN_LEFT - 6.0)
            .map(|l| l.text.as_str())
            .collect();
        let x_ticks: Vec<&str> = all
            .iter()
            .filter(|l| l.y == HEIGHT - MARGIN_BOTTOM + 18.0)
            .map(|l| l.text.as_str())
            .collect();
        for ticks in [&y_ticks, &x_ticks] {
            assert!(ticks.len() >= 2, "{ticks:?}");
            let mut unique = ticks.to_vec();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ticks.len(), "repeated tick labels {ticks:?}");
        }
    }

    #[test]
    fn log_scale_ticks_are_distinct_powers_of_ten() {
        let svg = plot(&[2f64.powi(-30), 1e-3, 0.25, 3.0]);
        assert!(svg.contains("log scale"));
        assert_readable(&svg);
        for tick in ["1e-10", "1e-6", "1"] {
            assert!(svg.contains(&format!(">{tick}</text>")), "{tick} missing");
        }
        assert!(!svg.contains("0.0000"));
        // A huge span is thinned to at most MAX_LOG_TICKS + 1 labels.
        let wide = plot(&[1e-300, 1.0]);
        assert_readable(&wide);
        assert!(log_ticks(-300, 0).len() <= MAX_LOG_TICKS as usize + 1);
    }

    #[test]
    fn linear_scale_ticks_are_distinct_and_every_label_fits() {
        for errors in [&[0.5, 0.6, 0.7][..], &[0.0, 0.0001], &[1e6, 2e6]] {
            assert_readable(&plot(errors));
        }
        assert_readable(&svg("empty", CrunchFormat::Binary32, &[]));
    }
}
