//! Standing surfaces in a small platformer level: the two-level visitor of the world's scene
//! queries, after the obstruction test of the seeds (`ObstructionTest` with
//! `ObstructionFlags.Geometry` and `Entities`, and its `StandingSurfaceVisitor`).
//!
//! The level is a [`World2`]: the terrain (one fixed compound of convex polygons: ground, slope,
//! plateau) and a pressure plate in the *geometry* layer, and entity boxes in the *entities*
//! layer: a crate on the ground with another crate on top, a player standing on the pressure
//! plate and on a slime at once, a knight on the joint of the ground and the slope, a goblin on
//! the slope, a bird in the air.
//!
//! What an entity stands on is every collider a thin probe box under its feet overlaps
//! ([`World2::visit_overlap`]). The [`StandingSurfaces`] visitor works on the two levels of the
//! query: at the collider level, before any exact test, it rejects the entity itself (whose
//! bottom the probe touches); at the hit level it records the surface and the parts (polygons)
//! of it under the feet. [`Flags`] choose geometry, entities or both through the query filter's
//! layers, as `ObstructionFlags` chose which lists the seed walked.
//!
//! Run with `cargo run -p kollide --example standing_surfaces`.

use std::ops::BitOr;

use glam::{Affine2, Vec2};
use kollide::query::{self, Compound2, PartManifold2, Shape2};
use kollide::shape::{ConvexPolygon2, ConvexShape2, Cuboid2};
use kollide::world::{
    Collider2, ColliderDesc2, ColliderHandle, ColliderVisit, CollisionFilter, Dim2, HitVisit, QueryFilter,
    Visitor, World2,
};

/// The collision layer of level geometry.
const GEOMETRY_LAYER: u64 = 1 << 0;
/// The collision layer of entities.
const ENTITY_LAYER: u64 = 1 << 1;
/// How far below an entity's feet the probe reaches.
const PROBE_DEPTH: f32 = 0.05;

/// Which colliders an obstruction test looks at (the seed's `ObstructionFlags`): a set of layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flags(u64);

impl Flags {
    pub const GEOMETRY: Flags = Flags(GEOMETRY_LAYER);
    pub const ENTITIES: Flags = Flags(ENTITY_LAYER);
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// A surface an entity stands on: the collider and its parts under the entity's feet (child
/// polygons of a compound; 0 for a convex shape), in increasing order.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub collider: ColliderHandle,
    pub parts: Vec<u32>,
}

/// The level: its world and the names of its colliders (a collider's user data indexes `names`).
pub struct Level {
    pub world: World2,
    names: Vec<&'static str>,
}

impl Level {
    /// The collider named `name`.
    ///
    /// # Panics
    ///
    /// If the level has no collider of that name.
    pub fn entity(&self, name: &str) -> ColliderHandle {
        self.world
            .colliders()
            .find(|(_, c)| self.names[c.user_data() as usize] == name)
            .map(|(h, _)| h)
            .unwrap_or_else(|| panic!("no collider named {name}"))
    }

    /// The name of a collider of the level.
    pub fn name(&self, handle: ColliderHandle) -> &'static str {
        self.world.collider(handle).map_or("?", |c| self.names[c.user_data() as usize])
    }

    fn add(&mut self, name: &'static str, desc: ColliderDesc2) {
        let desc = desc.with_user_data(self.names.len() as u64);
        self.world.insert(desc).expect("a valid collider");
        self.names.push(name);
    }
}

fn polygon(points: &[(f32, f32)]) -> ConvexShape2 {
    let points: Vec<Vec2> = points.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    ConvexShape2::Polygon(ConvexPolygon2::new(&points).expect("a convex polygon"))
}

fn cuboid(half_x: f32, half_y: f32) -> Shape2 {
    Shape2::Convex(ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(half_x, half_y))))
}

/// The level of the module documentation. The ground's top is at `y = 0`; the slope rises from
/// `(0, 0)` to `(4, 2)`.
pub fn build_level() -> Level {
    let mut level = Level { world: World2::new(), names: Vec::new() };
    let geometry = CollisionFilter::new(GEOMETRY_LAYER, u64::MAX);
    let entity = CollisionFilter::new(ENTITY_LAYER, u64::MAX);
    let terrain = Compound2::new(vec![
        (polygon(&[(-10.0, -1.0), (0.0, -1.0), (0.0, 0.0), (-10.0, 0.0)]), Affine2::IDENTITY),
        (polygon(&[(0.0, -1.0), (4.0, -1.0), (4.0, 2.0), (0.0, 0.0)]), Affine2::IDENTITY),
        (polygon(&[(4.0, -1.0), (8.0, -1.0), (8.0, 2.0), (4.0, 2.0)]), Affine2::IDENTITY),
    ])
    .expect("valid polygons");
    let at = |x: f32, y: f32| Affine2::from_translation(Vec2::new(x, y));
    let fixed =
        |shape: Shape2, placement| ColliderDesc2::new(shape, placement).fixed(true).with_filter(geometry);
    level.add("terrain", fixed(terrain.into(), Affine2::IDENTITY));
    level.add("pressure plate", fixed(cuboid(0.5, 0.05), at(-3.0, 0.05)));
    // Entities, each placed with its feet on what it stands on (boxes are centred).
    let body = |shape: Shape2, placement| ColliderDesc2::new(shape, placement).with_filter(entity);
    level.add("crate", body(cuboid(0.5, 0.5), at(-7.0, 0.5)));
    level.add("top crate", body(cuboid(0.4, 0.4), at(-7.0, 1.4)));
    level.add("player", body(cuboid(0.3, 0.6), at(-2.6, 0.7)));
    level.add("slime", body(cuboid(0.45, 0.05), at(-2.0, 0.05)));
    level.add("knight", body(cuboid(0.3, 0.6), at(0.0, 0.6)));
    level.add("goblin", body(cuboid(0.3, 0.5), at(2.0, 1.5)));
    level.add("bird", body(cuboid(0.25, 0.2), at(6.0, 5.0)));
    level
}

/// The seed's `StandingSurfaceVisitor`: collects every surface a probe under an entity's feet
/// overlaps, with the parts it overlaps.
pub struct StandingSurfaces {
    /// The entity, rejected at the collider level.
    pub entity: ColliderHandle,
    /// The probe and its placement.
    pub probe: (Shape2, Affine2),
    pub results: Vec<Surface>,
    /// Colliders rejected before their exact test.
    pub rejected: usize,
    scratch: Vec<PartManifold2>,
}

impl Visitor<Dim2, ()> for StandingSurfaces {
    fn collider(&mut self, handle: ColliderHandle, _: &Collider2) -> ColliderVisit {
        if handle == self.entity {
            self.rejected += 1;
            return ColliderVisit::Skip;
        }
        ColliderVisit::Test
    }

    fn hit(&mut self, handle: ColliderHandle, collider: &Collider2, _: &()) -> HitVisit {
        // The overlap's hit names no part: the parts come from the pair's manifolds (one per
        // pair of parts that touch; the probe is convex, so `part_a` is the surface's part).
        let (probe, probe_at) = &self.probe;
        let mut parts = Vec::new();
        if query::contact_manifolds2(
            collider.shape(),
            collider.placement(),
            probe,
            probe_at,
            0.0,
            &mut self.scratch,
        )
        .is_ok()
        {
            parts.extend(self.scratch.iter().map(|m| m.part_a));
        }
        parts.sort_unstable();
        parts.dedup();
        self.results.push(Surface { collider: handle, parts });
        HitVisit::Continue
    }
}

/// The probe under an entity's feet: a box as wide as its world box, [`PROBE_DEPTH`] tall, whose
/// top is the bottom of the entity's box.
pub fn probe_under(collider: &Collider2) -> (Shape2, Affine2) {
    let bounds = collider.bounds();
    let half = Vec2::new(0.5 * (bounds.max.x - bounds.min.x), 0.5 * PROBE_DEPTH);
    let center = Vec2::new(0.5 * (bounds.min.x + bounds.max.x), bounds.min.y - half.y);
    (cuboid(half.x, half.y), Affine2::from_translation(center))
}

/// Every surface of the kinds in `flags` that `entity` stands on, in slot order.
///
/// # Panics
///
/// If `entity` is not a collider of the level.
pub fn standing_surfaces(level: &Level, entity: ColliderHandle, flags: Flags) -> Vec<Surface> {
    let collider = level.world.collider(entity).expect("an entity of the level");
    let mut visitor = StandingSurfaces {
        entity,
        probe: probe_under(collider),
        results: Vec::new(),
        rejected: 0,
        scratch: Vec::new(),
    };
    // The probe is an entity that sees the layers in `flags`.
    let filter = QueryFilter::new().with_bits(CollisionFilter::new(ENTITY_LAYER, flags.0));
    let (probe, at) = visitor.probe.clone();
    level.world.visit_overlap(&probe, &at, &filter, &mut visitor).expect("a valid probe");
    visitor.results
}

fn main() {
    let level = build_level();
    let entities = ["crate", "top crate", "player", "slime", "knight", "goblin", "bird"];
    for (flags, what) in [
        (Flags::GEOMETRY | Flags::ENTITIES, "geometry and entities"),
        (Flags::GEOMETRY, "geometry only"),
        (Flags::ENTITIES, "entities only"),
    ] {
        println!("Standing surfaces ({what}):");
        for name in entities {
            let surfaces = standing_surfaces(&level, level.entity(name), flags);
            let list: Vec<String> = surfaces
                .iter()
                .map(|s| format!("{} (parts {:?})", level.name(s.collider), s.parts))
                .collect();
            let list = if list.is_empty() { "nothing".to_string() } else { list.join(", ") };
            println!("  {name:>10} stands on {list}");
        }
    }
}
