use kollide::primitive::d2::*;
use kollide_testkit::topojson::*;

#[test]
fn explore() {
    let countries = countries_110m();
    let mut n = 0;
    for c in &countries {
        for (k, poly) in c.polygons.iter().enumerate() {
            n += 1;
            let (plane, fix) = poly.to_plane();
            let holes: Vec<&[glam::Vec2]> = plane.holes.iter().map(|h| h.as_slice()).collect();
            let r = decompose_polygon2(&plane.outer, &holes);
            match r {
                Ok(p) => {
                    let area: f64 = p.iter().map(|q| polygon_area2(q) as f64).sum();
                    let want = (polygon_area2(&plane.outer) as f64).abs() - holes.iter().map(|h| (polygon_area2(h) as f64).abs()).sum::<f64>();
                    if fix != PlaneFix::Unchanged || (area - want).abs() > 1e-4 * want { println!("{} {k} {fix:?} pieces {} area {area} want {want}", c.name, p.len()); }
                }
                Err(e) => println!("{} {k} {fix:?} ERR {e}", c.name),
            }
        }
    }
    println!("{n} polygons");
}
