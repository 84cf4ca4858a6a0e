//! Output: the machine header, the markdown table and the JSON file.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::harness::Measurement;
use crate::workloads::Workload;

/// One finished row of the report.
pub struct Row {
    pub workload: &'static str,
    pub metric: &'static str,
    pub peer: &'static str,
    /// kollide's median, in units of `metric`.
    pub kollide: f64,
    /// The peer's median, in units of `metric`.
    pub peer_value: f64,
    /// `peer_value / kollide`: above 1 means kollide is faster.
    pub speedup: f64,
    pub note: String,
}

impl Row {
    /// A row for a figure that is not a timing (e.g. bytes per triangle), where smaller is better:
    /// `speedup` is still `peer / kollide`, so above 1 means kollide is better.
    pub fn figure(
        workload: &'static str,
        metric: &'static str,
        peer: &'static str,
        kollide: f64,
        peer_value: f64,
    ) -> Self {
        Self {
            workload,
            metric,
            peer,
            kollide,
            peer_value,
            speedup: peer_value / kollide,
            note: "smaller is better".to_string(),
        }
    }

    pub fn new(workload: &Workload, m: &Measurement) -> Self {
        let a = &m.agreement;
        let mut note = format!("hit rate {:.1}%", 100.0 * a.hit_rate());
        if a.mismatches == 0 {
            note.push_str(", agree");
        } else if a.ok() {
            let _ = write!(note, ", agree ({} of {} differ)", a.mismatches, a.items);
        } else {
            let _ = write!(
                note,
                ", **DISAGREE**: {} of {} items differ (first #{}), hits kollide {} vs peer {}",
                a.mismatches,
                a.items,
                a.first_mismatch.unwrap_or(0),
                a.kollide_hits,
                a.peer_hits
            );
        }
        if m.speedup() < 1.0 {
            note.push_str(", **kollide slower**");
        }
        Self {
            workload: workload.name,
            metric: workload.metric,
            peer: workload.peer,
            kollide: m.kollide_ns / workload.ns_per_unit,
            peer_value: m.peer_ns / workload.ns_per_unit,
            speedup: m.speedup(),
            note,
        }
    }
}

/// The CPU model and the number of logical cores, from `/proc/cpuinfo` where it exists.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == "model name").then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {cores} logical cores, {}", std::env::consts::OS)
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, <https://howardhinnant.github.io/date_algorithms.html>).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A value with three significant digits (at least one decimal below 100).
fn value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The markdown table. When every row has the same peer its name goes in a line above the table,
/// otherwise next to each peer value.
pub fn table(rows: &[Row]) -> String {
    let one_peer = rows.first().map(|r| r.peer).filter(|p| rows.iter().all(|r| r.peer == *p));
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                format!("`{}`", r.workload),
                r.metric.to_string(),
                value(r.kollide),
                if one_peer.is_some() {
                    value(r.peer_value)
                } else {
                    format!("{} ({})", value(r.peer_value), r.peer)
                },
                format!("{:.2}x", r.speedup),
                r.note.clone(),
            ]
        })
        .collect();
    let header = ["workload", "metric", "kollide", "peer", "speedup", "note"];
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    if let Some(peer) = one_peer {
        let _ = writeln!(out, "peer: {peer}; speedup = peer / kollide (above 1: kollide faster)\n");
    }
    let line = |out: &mut String, cells: &[String]| {
        out.push('|');
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            // Numbers right-aligned, text left-aligned.
            if (2..=4).contains(&i) {
                let _ = write!(out, " {c:>w$} |");
            } else {
                let _ = write!(out, " {c:<w$} |");
            }
        }
        out.push('\n');
    };
    line(&mut out, &header.map(String::from));
    out.push('|');
    for (i, w) in widths.iter().enumerate() {
        let dashes = "-".repeat(*w);
        if (2..=4).contains(&i) {
            let _ = write!(out, " {}: |", &dashes[1..]);
        } else {
            let _ = write!(out, " {dashes} |");
        }
    }
    out.push('\n');
    for row in &cells {
        line(&mut out, row);
    }
    out
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number; non-finite values (which JSON cannot hold) become `null`.
fn json_number(v: f64) -> String {
    if v.is_finite() { format!("{v}") } else { "null".to_string() }
}

/// The rows as a JSON array of objects with the keys `workload`, `metric`, `kollide`, `peer`,
/// `peer_value`, `speedup`.
pub fn json(rows: &[Row]) -> String {
    let mut out = String::from("[\n");
    for (i, r) in rows.iter().enumerate() {
        let _ = write!(
            out,
            "  {{\"workload\": {}, \"metric\": {}, \"kollide\": {}, \"peer\": {}, \
             \"peer_value\": {}, \"speedup\": {}}}",
            json_string(r.workload),
            json_string(r.metric),
            json_number(r.kollide),
            json_string(r.peer),
            json_number(r.peer_value),
            json_number(r.speedup),
        );
        out.push_str(if i + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push_str("]\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn json_has_the_required_keys_and_escapes() {
        let rows = [Row {
            workload: "a\"b",
            metric: "ns/test",
            peer: "parry3d 0.31",
            kollide: 1.5,
            peer_value: 3.0,
            speedup: 2.0,
            note: String::new(),
        }];
        let text = json(&rows);
        assert_eq!(
            text,
            "[\n  {\"workload\": \"a\\\"b\", \"metric\": \"ns/test\", \"kollide\": 1.5, \
             \"peer\": \"parry3d 0.31\", \"peer_value\": 3, \"speedup\": 2}\n]\n"
        );
        assert_eq!(json(&[]), "[\n]\n");
    }
}
