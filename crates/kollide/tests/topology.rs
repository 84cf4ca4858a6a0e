use kollide::mesh::io;
use kollide::mesh::topology;
use std::path::Path;
#[test]
fn scratch() {
    for f in ["cgal_bunny00.off","cgal_armadillo.off","cgal_elephant.off","cgal_fandisk.off","cgal_knot2.off","bunny_npm_3674.obj","teapot_npm_992.obj","ant_pyvista_912.ply","sphere_pyvista_840.ply","spider_assimp_1368.obj","spider_assimp_1368.stl"] {
        let m = io::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(f)).unwrap();
        let r = topology(&m.triangles, m.vertices.len());
        let vol: f64 = m.triangles.iter().map(|t| { let [a,b,c] = t.map(|i| m.vertices[i as usize].as_dvec3()); a.dot(b.cross(c))/6.0 }).sum();
        println!("{f}: {r:?} vol {vol:.4}");
    }
}
