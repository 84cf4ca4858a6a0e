use glam::{Affine2, Vec2};
use kollide::narrow::{self, ContactManifold2, GjkCache2};
use kollide::shape::{Capsule2, ConvexShape2};
use parry2d::math::Pose;
use parry2d::query::{self as pq, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry2d::shape::SharedShape;

fn main() {
    let mut rng = 12345u64;
    let mut next = || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; (rng % 10000) as f32 / 10000.0 };
    let mut shown = 0;
    for _ in 0..2000 {
        let (ha, ra, hb, rb) = (0.3 + 0.7 * next(), 0.2 + 0.3 * next(), 0.3 + 0.7 * next(), 0.2 + 0.3 * next());
        let (qa, qb) = (next() * 6.4 - 3.2, next() * 6.4 - 3.2);
        let ta = Vec2::new(next() * 4.0 - 2.0, next() * 4.0 - 2.0);
        let dir = Vec2::from_angle(next() * 6.28);
        let tb = ta + dir * next() * 0.4 * (ha + ra + hb + rb);
        let (a, b) = (ConvexShape2::Capsule(Capsule2::new(ha, ra)), ConvexShape2::Capsule(Capsule2::new(hb, rb)));
        let (am, bm) = (Affine2::from_angle_translation(qa, ta), Affine2::from_angle_translation(qb, tb));
        let mut m = ContactManifold2::default();
        narrow::contact_manifold2(&a, &am, &b, &bm, 0.0, &mut GjkCache2::default(), &mut m).unwrap();
        let c = narrow::contact2(&a, &am, &b, &bm, 0.0, &mut GjkCache2::default()).unwrap();
        let (pa, pb) = (SharedShape::capsule_y(ha, ra), SharedShape::capsule_y(hb, rb));
        let (pam, pbm) = (Pose::new(ta, qa), Pose::new(tb, qb));
        let mut pm = pq::ContactManifold::<(), ()>::new();
        DefaultQueryDispatcher.contact_manifold_convex_convex(&pam.inv_mul(&pbm), pa.as_ref(), pb.as_ref(), None, None, 0.0, &mut pm).unwrap();
        let pc = pq::contact(&pam, pa.as_ref(), &pbm, pb.as_ref(), 0.0).unwrap();
        let kd = m.points().iter().map(|p| p.separation).reduce(f32::min);
        let pd = pm.points.iter().map(|p| p.dist).reduce(f32::min);
        let ok = match (kd, pd) { (None, None) => true, (Some(x), Some(y)) => (x - y).abs() <= 3e-3 + 2e-2 * x.abs().max(y.abs()), _ => false };
        if !ok && shown < 5 {
            shown += 1;
            println!("kollide manifold {:?} n={:?} pts={}; contact {:?}", kd, m.normal, m.len(), c.map(|c| (c.separation, c.normal)));
            println!("parry   manifold {:?} n={:?} pts={}; contact {:?}", pd, pm.local_n1, pm.points.len(), pc.map(|c| (c.dist, c.normal1)));
        }
    }
}
