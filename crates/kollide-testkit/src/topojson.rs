//! A TopoJSON reader for polygon outlines (the country map `assets/countries-110m.topo.json`).
//!
//! TopoJSON (Bostock, <https://github.com/topojson/topojson-specification>) stores each shared
//! border once, as an arc: a list of positions. With a `transform`, positions are quantized and
//! delta-encoded: each arc's first position is absolute, each later one a difference from the one
//! before, all integers, and a decoded integer position `q` stands for `q · scale + translate`.
//! Geometries list arcs by index; index `!i` (that is `-i - 1`) is arc `i` reversed. A ring is
//! the concatenation of its arcs, each arc after the first dropping its first position (it repeats
//! the previous arc's last), and ends where it starts; [`decode_countries`] drops that closing
//! repeat. Coordinates are longitude and latitude in degrees.
//!
//! The map is drawn on the sphere: a few rings cross the antimeridian (±180°) and Antarctica's
//! ring goes once around the south pole. [`PolygonRings::to_plane`] turns those into simple
//! polygons of the longitude/latitude plane.

use std::path::Path;

use glam::{DVec2, Vec2};
use serde_json::Value;

/// A polygon: its outer ring and holes, as vertex loops without the closing repeat, in the
/// winding of the file (TopoJSON from `world-atlas` winds outer rings clockwise).
#[derive(Clone, Debug, PartialEq)]
pub struct PolygonRings {
    /// The outer ring.
    pub outer: Vec<Vec2>,
    /// The holes.
    pub holes: Vec<Vec<Vec2>>,
}

/// A named geometry: its polygons (one for a `Polygon`, several for a `MultiPolygon`).
#[derive(Clone, Debug, PartialEq)]
pub struct Country {
    /// The `name` property (empty when absent).
    pub name: String,
    /// The polygons, in file order.
    pub polygons: Vec<PolygonRings>,
}

/// What [`PolygonRings::to_plane`] changed in a ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneFix {
    /// Nothing: the ring never crosses the antimeridian.
    Unchanged,
    /// The ring crosses the antimeridian an even number of times: its longitudes were unwrapped
    /// (moved by multiples of 360°) so that no edge spans more than 180°.
    Unwrapped,
    /// The ring crosses the antimeridian an odd number of times, so it goes around a pole:
    /// unwrapped, and closed along the antimeridians and the pole's latitude (±90°).
    ClosedThroughPole,
}

impl PolygonRings {
    /// The polygon in the plane of longitude and latitude, and what changed in its outer ring
    /// (holes get the same treatment).
    ///
    /// A ring edge whose longitudes differ by more than 180° is taken to cross the antimeridian
    /// (the short way round the sphere). Such rings are unwrapped: each vertex moves by the
    /// multiple of 360° that keeps every edge under 180° long. An outer ring is then shifted so
    /// that its westernmost longitude lies in `[-180, 180)`, a hole to lie nearest its outer ring.
    /// After an odd number of crossings the unwrapped ring does not close: it goes around a pole
    /// (the one on the side of its mean latitude), and it is closed through that pole at
    /// latitude ±90° (the plate carrée picture of such a ring).
    pub fn to_plane(&self) -> (PolygonRings, PlaneFix) {
        let (outer, fix) = ring_to_plane(&self.outer);
        let center = |r: &[Vec2]| r.iter().map(|p| f64::from(p.x)).sum::<f64>() / r.len().max(1) as f64;
        let outer_center = center(&outer);
        let holes = self
            .holes
            .iter()
            .map(|hole| {
                let (hole, _) = ring_to_plane(hole);
                let turns = ((outer_center - center(&hole)) / 360.0).round() as f32;
                hole.iter().map(|p| Vec2::new(p.x + 360.0 * turns, p.y)).collect()
            })
            .collect();
        (PolygonRings { outer, holes }, fix)
    }
}

fn ring_to_plane(ring: &[Vec2]) -> (Vec<Vec2>, PlaneFix) {
    let n = ring.len();
    let wrap = |a: f64, b: f64| {
        if b - a > 180.0 {
            -1.0
        } else if b - a < -180.0 {
            1.0
        } else {
            0.0
        }
    };
    let mut turns = 0.0;
    let mut out: Vec<DVec2> = Vec::with_capacity(n + 4);
    for (i, p) in ring.iter().enumerate() {
        if i > 0 {
            turns += wrap(f64::from(ring[i - 1].x), f64::from(p.x));
        }
        out.push(DVec2::new(f64::from(p.x) + 360.0 * turns, f64::from(p.y)));
    }
    let Some((&first, &last)) = ring.first().zip(ring.last()) else {
        return (Vec::new(), PlaneFix::Unchanged);
    };
    let last_wrap = wrap(f64::from(last.x), f64::from(first.x));
    let closing = turns + last_wrap;
    let mut fix = if out.iter().zip(ring).any(|(a, b)| a.x != f64::from(b.x)) {
        PlaneFix::Unwrapped
    } else {
        PlaneFix::Unchanged
    };
    if closing != 0.0 {
        // The closing edge runs from `a` to `b`, the first vertex moved by the net turn: it
        // crosses the antimeridian, `edge` in the unwrapped frame of `a`, at latitude `lat`.
        let a = out[n - 1];
        let b = DVec2::new(f64::from(first.x) + 360.0 * closing, f64::from(first.y));
        let edge = 180.0 * last_wrap + 360.0 * turns;
        let lat = if b.x == a.x { a.y } else { a.y + (edge - a.x) / (b.x - a.x) * (b.y - a.y) };
        let mean = out.iter().map(|p| p.y).sum::<f64>() / n as f64;
        let pole = if mean < 0.0 { -90.0 } else { 90.0 };
        out.extend([
            DVec2::new(edge, lat),
            DVec2::new(edge, pole),
            DVec2::new(edge - 360.0 * closing, pole),
            DVec2::new(edge - 360.0 * closing, lat),
        ]);
        fix = PlaneFix::ClosedThroughPole;
    }
    let west = out.iter().fold(f64::INFINITY, |m, p| m.min(p.x));
    let shift = 360.0 * (-((west + 180.0) / 360.0).floor());
    (out.iter().map(|p| Vec2::new((p.x + shift) as f32, p.y as f32)).collect(), fix)
}

/// Why a TopoJSON text could not be read.
#[derive(Debug)]
pub enum TopoJsonError {
    /// Not JSON.
    Json(serde_json::Error),
    /// JSON, but not the TopoJSON this reader expects: what is wrong, and where.
    Format(String),
}

impl std::fmt::Display for TopoJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TopoJsonError::Json(e) => write!(f, "not JSON: {e}"),
            TopoJsonError::Format(what) => write!(f, "not TopoJSON: {what}"),
        }
    }
}

impl std::error::Error for TopoJsonError {}

fn format_error<T>(what: impl Into<String>) -> Result<T, TopoJsonError> {
    Err(TopoJsonError::Format(what.into()))
}

/// Decodes the `Polygon` and `MultiPolygon` geometries of the object `object` (a
/// `GeometryCollection`, such as `"countries"`) into named polygons in longitude/latitude
/// degrees. Other geometry types (and null geometries) are skipped.
pub fn decode_countries(text: &str, object: &str) -> Result<Vec<Country>, TopoJsonError> {
    let doc: Value = serde_json::from_str(text).map_err(TopoJsonError::Json)?;
    let arcs = decode_arcs(&doc)?;
    let Some(geometries) = doc["objects"][object]["geometries"].as_array() else {
        return format_error(format!("no geometries in object {object:?}"));
    };
    let mut countries = Vec::new();
    for (g, geometry) in geometries.iter().enumerate() {
        let name = geometry["properties"]["name"].as_str().unwrap_or_default().to_string();
        let polygons: Vec<&Value> = match geometry["type"].as_str() {
            Some("Polygon") => vec![&geometry["arcs"]],
            Some("MultiPolygon") => match geometry["arcs"].as_array() {
                Some(list) => list.iter().collect(),
                None => return format_error(format!("geometry {g}: MultiPolygon without arcs")),
            },
            _ => continue,
        };
        let mut out = Vec::with_capacity(polygons.len());
        for polygon in polygons {
            let Some(rings) = polygon.as_array().filter(|r| !r.is_empty()) else {
                return format_error(format!("geometry {g}: a polygon without rings"));
            };
            let mut rings = rings.iter().map(|r| decode_ring(r, &arcs).map_err(|e| at_geometry(g, e)));
            let outer = rings.next().unwrap_or_else(|| format_error("no rings"))?;
            let holes = rings.collect::<Result<Vec<_>, _>>()?;
            out.push(PolygonRings { outer, holes });
        }
        countries.push(Country { name, polygons: out });
    }
    Ok(countries)
}

fn at_geometry(g: usize, e: TopoJsonError) -> TopoJsonError {
    match e {
        TopoJsonError::Format(what) => TopoJsonError::Format(format!("geometry {g}: {what}")),
        other => other,
    }
}

/// Every arc as absolute positions: the deltas summed, then scaled and translated when the
/// topology is quantized.
fn decode_arcs(doc: &Value) -> Result<Vec<Vec<Vec2>>, TopoJsonError> {
    let pair = |v: &Value| -> Option<DVec2> {
        let a = v.as_array()?;
        Some(DVec2::new(a.first()?.as_f64()?, a.get(1)?.as_f64()?))
    };
    let transform = &doc["transform"];
    let quantized = !transform.is_null();
    let (scale, translate) = if quantized {
        match (pair(&transform["scale"]), pair(&transform["translate"])) {
            (Some(s), Some(t)) => (s, t),
            _ => return format_error("a transform without scale and translate"),
        }
    } else {
        (DVec2::ONE, DVec2::ZERO)
    };
    let Some(arcs) = doc["arcs"].as_array() else { return format_error("no arcs") };
    let mut out = Vec::with_capacity(arcs.len());
    for (i, arc) in arcs.iter().enumerate() {
        let Some(points) = arc.as_array() else { return format_error(format!("arc {i} is not a list")) };
        let mut q = DVec2::ZERO;
        let mut decoded = Vec::with_capacity(points.len());
        for p in points {
            let Some(p) = pair(p) else { return format_error(format!("arc {i}: a bad position")) };
            q = if quantized { q + p } else { p };
            decoded.push((q * scale + translate).as_vec2());
        }
        out.push(decoded);
    }
    Ok(out)
}

/// One ring: its arcs joined (arc `!i` reversed), the closing repeat dropped.
fn decode_ring(indices: &Value, arcs: &[Vec<Vec2>]) -> Result<Vec<Vec2>, TopoJsonError> {
    let Some(indices) = indices.as_array() else { return format_error("a ring is not a list of arcs") };
    let mut ring: Vec<Vec2> = Vec::new();
    for index in indices {
        let Some(i) = index.as_i64() else { return format_error("an arc index is not an integer") };
        let (k, reversed) = if i >= 0 { (i, false) } else { (!i, true) };
        let Some(arc) = usize::try_from(k).ok().and_then(|k| arcs.get(k)) else {
            return format_error(format!("arc index {i} out of range"));
        };
        let points: Vec<Vec2> = if reversed { arc.iter().rev().copied().collect() } else { arc.clone() };
        match ring.last() {
            None => ring.extend(points),
            Some(last) if points.first() == Some(last) => ring.extend(points.into_iter().skip(1)),
            Some(_) => return format_error(format!("arc {i} does not start where the ring has got to")),
        }
    }
    match (ring.first(), ring.last()) {
        (Some(first), Some(last)) if first == last && ring.len() > 1 => {
            ring.pop();
            Ok(ring)
        }
        _ => format_error("a ring that does not close"),
    }
}

/// The vendored Natural Earth 1:110m country map (`assets/countries-110m.topo.json`, object
/// `countries`), decoded.
///
/// # Panics
///
/// If the file is missing or does not decode (the test suites rely on it).
pub fn countries_110m() -> Vec<Country> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/countries-110m.topo.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode_countries(&text, "countries").unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    const TOPOLOGY: &str = r#"{"type": "Topology",
        "transform": {"scale": [0.5, 0.25], "translate": [10, 20]},
        "arcs": [[[0, 0], [4, 0], [0, 4]], [[4, 4], [-4, 0], [0, -4]],
                 [[1, 1], [1, 0], [0, 1], [-1, 0], [0, -1]]],
        "objects": {"countries": {"type": "GeometryCollection", "geometries": [
            {"type": "Polygon", "arcs": [[0, 1], [-3]], "properties": {"name": "A"}},
            {"type": "MultiPolygon", "arcs": [[[0, 1]], [[2]]], "properties": {"name": "B"}},
            {"type": "Point", "coordinates": [0, 0]},
            {"type": "Polygon", "arcs": [[2]]}]}}}"#;

    #[test]
    fn quantized_arcs_joined_and_reversed() {
        let countries = decode_countries(TOPOLOGY, "countries").unwrap();
        let square = vec![v(10.0, 20.0), v(12.0, 20.0), v(12.0, 21.0), v(10.0, 21.0)];
        let hole = vec![v(10.5, 20.25), v(10.5, 20.5), v(11.0, 20.5), v(11.0, 20.25)];
        let inner = vec![v(10.5, 20.25), v(11.0, 20.25), v(11.0, 20.5), v(10.5, 20.5)];
        assert_eq!(countries.len(), 3);
        assert_eq!(countries[0].name, "A");
        assert_eq!(countries[0].polygons, vec![PolygonRings { outer: square.clone(), holes: vec![hole] }]);
        assert_eq!(countries[1].polygons.len(), 2);
        assert_eq!(countries[1].polygons[1].outer, inner);
        assert_eq!(countries[2].name, "");
        // Without a transform, positions are absolute.
        let plain = r#"{"type": "Topology", "arcs": [[[0, 0], [4, 0], [4, 4]], [[4, 4], [0, 4], [0, 0]]],
            "objects": {"c": {"type": "GeometryCollection", "geometries": [
                {"type": "Polygon", "arcs": [[0, 1]]}]}}}"#;
        let countries = decode_countries(plain, "c").unwrap();
        assert_eq!(countries[0].polygons[0].outer, vec![v(0.0, 0.0), v(4.0, 0.0), v(4.0, 4.0), v(0.0, 4.0)]);
    }

    #[test]
    fn bad_topologies_are_errors() {
        assert!(matches!(decode_countries("{", "countries"), Err(TopoJsonError::Json(_))));
        for (from, to) in [
            ("[[0, 1], [-3]]", "[[0, 7]]"),
            ("[[0, 1], [-3]]", "[[0]]"),
            ("[[0, 1], [-3]]", "[[0, 1.5]]"),
            ("[[0, 1], [-3]]", "[]"),
            ("[[0, 1], [-3]]", "[[0, -2]]"),
            (r#""countries": {"#, r#""other": {"#),
        ] {
            let text = TOPOLOGY.replacen(from, to, 1);
            let result = decode_countries(&text, "countries");
            assert!(matches!(result, Err(TopoJsonError::Format(_))), "{to}: {result:?}");
        }
    }

    #[test]
    fn rings_across_the_antimeridian_and_around_a_pole() {
        let ring = |points: &[[f32; 2]]| points.iter().map(|&p| Vec2::from(p)).collect::<Vec<_>>();
        let polygon = |outer| PolygonRings { outer, holes: vec![] };
        let across = polygon(ring(&[[179.0, 0.0], [-179.0, 0.0], [-179.0, 1.0], [179.0, 1.0]]));
        let (plane, fix) = across.to_plane();
        assert_eq!(fix, PlaneFix::Unwrapped);
        assert_eq!(plane.outer, ring(&[[179.0, 0.0], [181.0, 0.0], [181.0, 1.0], [179.0, 1.0]]));
        // Starting west of the antimeridian gives the same plane picture.
        let west = polygon(ring(&[[-179.0, 0.0], [-179.0, 1.0], [179.0, 1.0], [179.0, 0.0]]));
        assert_eq!(west.to_plane().0.outer, ring(&[[181.0, 0.0], [181.0, 1.0], [179.0, 1.0], [179.0, 0.0]]));
        // Around the north pole westward, starting east of the antimeridian.
        let north = polygon(ring(&[[170.0, 80.0], [50.0, 70.0], [-70.0, 75.0], [-170.0, 85.0]]));
        let (plane, fix) = north.to_plane();
        assert_eq!(fix, PlaneFix::ClosedThroughPole);
        let closed = [
            [170.0, 80.0],
            [50.0, 70.0],
            [-70.0, 75.0],
            [-170.0, 85.0],
            [-180.0, 82.5],
            [-180.0, 90.0],
            [180.0, 90.0],
            [180.0, 82.5],
        ];
        assert_eq!(plane.outer, ring(&closed));
        let pole = polygon(ring(&[[-180.0, -80.0], [0.0, -70.0], [180.0, -80.0]]));
        let (plane, fix) = pole.to_plane();
        assert_eq!(fix, PlaneFix::ClosedThroughPole);
        let closed = [
            [-180.0, -80.0],
            [0.0, -70.0],
            [180.0, -80.0],
            [180.0, -80.0],
            [180.0, -90.0],
            [-180.0, -90.0],
            [-180.0, -80.0],
        ];
        assert_eq!(plane.outer, ring(&closed));
        let plain = polygon(ring(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]));
        assert_eq!(plain.to_plane(), (plain.clone(), PlaneFix::Unchanged));
    }

    #[test]
    fn the_country_map() {
        let countries = countries_110m();
        assert_eq!(countries.len(), 177);
        assert_eq!(countries.iter().map(|c| c.polygons.len()).sum::<usize>(), 285);
        let with_holes: Vec<&str> = countries
            .iter()
            .filter(|c| c.polygons.iter().any(|p| !p.holes.is_empty()))
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(with_holes, ["South Africa"]);
    }
}
