use kollide::mesh::{TriMesh, io, topology};
use std::path::Path;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    for name in ["cgal_bunny00.off", "cgal_armadillo.off", "cgal_knot2.off", "cgal_fandisk.off"] {
        let data = io::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name)).unwrap();
        let (mut build, mut topo_index, mut full) = (vec![], vec![], vec![]);
        let mut pairs = None;
        for _ in 0..7 {
            let (v, t) = (data.vertices.clone(), data.triangles.clone());
            let start = Instant::now();
            let mesh = TriMesh::new(v, t).unwrap();
            build.push(start.elapsed().as_secs_f64() * 1e3);
            let start = Instant::now();
            let r = topology(mesh.triangles(), mesh.vertices().len());
            topo_index.push(start.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(r);
            let start = Instant::now();
            pairs = mesh.topology().self_intersecting_pairs;
            full.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let (b, ti, f) = (median(build), median(topo_index), median(full));
        println!(
            "{name}: {} tris, new {b:.2} ms, index topology {ti:.2} ms, mesh topology incl. self-intersections {f:.2} ms (self pass ~{:.2} ms = {:.0}% of new), pairs {pairs:?}",
            data.triangles.len(), f - ti, 100.0 * (f - ti) / b
        );
    }
}
