// The 3D view (three.js): the rod as a tube coloured by a field, its material frame on demand,
// the clamped base, the gravity direction, a ground grid, the obstacles it may touch with the
// contact forces as arrows, orbit/pan/zoom. z is up, as in the rod's reference configuration
// (straight along +z from the origin).

import {
  AmbientLight, ArrowHelper, BufferAttribute, BufferGeometry, CylinderGeometry,
  DirectionalLight, DoubleSide, DynamicDrawUsage, GridHelper, Group, HemisphereLight,
  LineBasicMaterial, LineSegments, Matrix4, Mesh, MeshBasicMaterial, MeshStandardMaterial,
  PerspectiveCamera, PlaneGeometry, Quaternion, Scene, SphereGeometry, Vector3, WebGLRenderer,
} from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { srgbToLinear, viridis } from "./colormap.js";
import { palette } from "./theme.js";
import { tubeIndex, vertexCount, writeTube } from "./tube.js";

// the camera presets: where the camera looks from, as a direction from the rod's centre
const PRESETS = {
  front: [0, -1, 0.12], // from -y: the x-z plane, where bend2 curls the rod
  side: [1, 0, 0.12], // from +x: the y-z plane
  top: [0, -0.02, 1], // from +z, down the rod (a hair off the axis, which is the camera's up)
  tip: [0.22, -0.95, 0.3],
  default: [0.22, -0.95, 0.3], // a little from above and to the side
};
const DIRECTORS = 14; // material frames drawn along the rod
const CONTACT_ARROWS = 400; // at most this many contact forces drawn (a frame lists one per touching point)
const CONTACT_COLOR = 0xffb020;
// d1 d2 d3 as the legend shows them (#f24d4d, #59d966, #5a8cff), in linear light
const DIRECTOR_COLORS = [[0xf2, 0x4d, 0x4d], [0x59, 0xd9, 0x66], [0x5a, 0x8c, 0xff]].map((c) => c.map((v) => srgbToLinear(v / 255)));

/**
 * Whether WebGL runs on the CPU (SwiftShader, llvmpipe: headless browsers, machines without a
 * GPU). There, multisampling costs about half the frame rate, so the view goes without it.
 */
function softwareWebGL() {
  const gl = document.createElement("canvas").getContext("webgl2");
  if (!gl) return false;
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "";
  gl.getExtension("WEBGL_lose_context")?.loseContext();
  return /swiftshader|llvmpipe|software/i.test(name);
}

export class RodView {
  constructor(container) {
    this.container = container;
    this.renderer = new WebGLRenderer({ antialias: !softwareWebGL() });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.palette = palette();
    this.renderer.setClearColor(this.palette.background);
    container.append(this.renderer.domElement);

    this.scene = new Scene();
    this.camera = new PerspectiveCamera(40, 1, 0.001, 100);
    this.camera.up.set(0, 0, 1);
    this.scene.add(new HemisphereLight(0xdde6ff, 0x1a2028, 1.4), new AmbientLight(0xffffff, 0.25));
    const sun = new DirectionalLight(0xffffff, 1.8);
    sun.position.set(1, -2, 3);
    this.scene.add(sun);

    this.markers = new Group(); // grid, base, gravity: rebuilt for each model
    this.scene.add(this.markers);
    this.attached = new Group(); // bodies and constraint targets, from the frames
    this.scene.add(this.attached);
    this.obstacles = new Group(); // planes, spheres, cylinders: from the description, per model
    this.scene.add(this.obstacles);
    this.contacts = new Group(); // contact forces: a pool of arrows, from the frames
    this.scene.add(this.contacts);
    this.plate = null;
    this.tube = null; // the mesh, made on the first frame of a given point count
    this.others = new Group(); // a model of several rods: the rods not selected, in grey
    this.scene.add(this.others);
    this.directors = null;
    this.showDirectors = false;
    this.length = 0.5;
    this.rgb = new Float32Array(0);
    this.lastFrame = null;
    this.preset = "default";
    this.model = { length: 0.5, baseRadius: 0.015, gravity: null };

    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.12;
    this.controls.addEventListener("change", () => (this.dirty = true));

    this.renders = 0; // frames drawn, for the perf script and the tests
    this.dirty = true;
    new ResizeObserver(() => this.#resize()).observe(container);
    this.#resize();
    this.setModel({ length: 0.5, baseRadius: 0.015, gravity: null });
    const loop = () => {
      // controls.update() is what moves the camera while damping settles
      if (this.controls.update() || this.dirty) {
        this.renderer.render(this.scene, this.camera);
        this.renders++;
        this.dirty = false;
      }
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
  }

  get canvas() {
    return this.renderer.domElement;
  }

  /**
   * The session's scale and markers: rod length (m), base radius (m), gravity [gx, gy, gz] or
   * null, and the obstacles as the description lists them ([{type: "plane", point, normal} |
   * {type: "sphere", center, radius} | {type: "cylinder", point, axis, radius}], or none).
   */
  setModel(model) {
    this.model = model;
    this.length = model.length > 0 ? model.length : 0.5;
    this.#buildMarkers();
    this.#buildObstacles(Array.isArray(model.obstacles) ? model.obstacles : []);
    this.resetView();
  }

  /**
   * The obstacles as translucent solids: a plane as a square 3 L across centred where the rod's
   * reference midpoint projects onto it, a cylinder 3 L long around the same point of its axis.
   */
  #buildObstacles(list) {
    this.#clearGroup(this.obstacles);
    const L = this.length;
    const mid = new Vector3(0, 0, 0.5 * L);
    const unit = (v) => {
      const u = new Vector3(...v);
      return u.lengthSq() > 0 ? u.normalize() : new Vector3(0, 0, 1);
    };
    for (const o of list) {
      const material = new MeshStandardMaterial({
        color: 0x8d99a6, roughness: 0.8, metalness: 0.0, transparent: true, opacity: 0.35,
        side: DoubleSide, depthWrite: false,
      });
      let mesh = null;
      if (o.type === "plane" && Array.isArray(o.point) && Array.isArray(o.normal)) {
        const n = unit(o.normal), p = new Vector3(...o.point);
        mesh = new Mesh(new PlaneGeometry(3 * L, 3 * L), material);
        mesh.quaternion.copy(new Quaternion().setFromUnitVectors(new Vector3(0, 0, 1), n));
        mesh.position.copy(mid).addScaledVector(n, -mid.clone().sub(p).dot(n));
      } else if (o.type === "sphere" && Array.isArray(o.center) && o.radius > 0) {
        mesh = new Mesh(new SphereGeometry(o.radius, 40, 24), material);
        mesh.position.set(...o.center);
      } else if (o.type === "cylinder" && Array.isArray(o.point) && Array.isArray(o.axis) && o.radius > 0) {
        const a = unit(o.axis), p = new Vector3(...o.point);
        mesh = new Mesh(new CylinderGeometry(o.radius, o.radius, 3 * L, 48, 1, true), material);
        mesh.quaternion.copy(new Quaternion().setFromUnitVectors(new Vector3(0, 1, 0), a));
        mesh.position.copy(p).addScaledVector(a, mid.clone().sub(p).dot(a));
      }
      if (!mesh) continue;
      mesh.userData.obstacle = o.name || o.type;
      mesh.renderOrder = 2; // after the opaque rod, so it shows through
      this.obstacles.add(mesh);
    }
    this.dirty = true;
  }

  /** The theme's colours: the background and the grid. */
  setPalette(p) {
    this.palette = p;
    this.renderer.setClearColor(p.background);
    this.#buildMarkers();
    this.dirty = true;
  }

  #buildMarkers() {
    const { baseRadius, gravity } = this.model;
    const L = this.length;
    for (const c of [...this.markers.children]) {
      this.markers.remove(c);
      c.traverse((o) => {
        o.geometry?.dispose();
        o.material?.dispose();
      });
    }
    const grid = new GridHelper(2 * L, 20, this.palette.gridMajor, this.palette.gridMinor);
    grid.rotation.x = Math.PI / 2; // into the x-y plane: the base plane
    this.markers.add(grid);

    // the clamp: a plate under the base
    const plateR = Math.max(2.5 * (baseRadius || 0.015), 0.06 * L);
    const plate = new Mesh(
      new CylinderGeometry(plateR, plateR, 0.012 * L, 48),
      new MeshStandardMaterial({ color: 0x8a96a3, metalness: 0.5, roughness: 0.45 }),
    );
    plate.rotation.x = Math.PI / 2;
    plate.position.z = -0.006 * L;
    this.markers.add(plate);
    this.plate = plate;

    // x, y, z from the origin (red, green, blue), short
    for (const [dir, color] of [[[1, 0, 0], 0xd05050], [[0, 1, 0], 0x50b060], [[0, 0, 1], 0x5070d0]]) {
      this.markers.add(new ArrowHelper(new Vector3(...dir), new Vector3(0, 0, 0), 0.16 * L, color, 0.03 * L, 0.015 * L));
    }

    const g = gravity && Math.hypot(...gravity) > 0 ? new Vector3(...gravity).normalize() : null;
    if (g) {
      const from = new Vector3(-0.6 * L, 0.6 * L, 0.9 * L).addScaledVector(g, -0.15 * L);
      this.markers.add(new ArrowHelper(g, from, 0.3 * L, 0xff9f43, 0.07 * L, 0.035 * L));
    }
    this.dirty = true;
  }

  /**
   * Frames the rod: the shown frame's centreline (or the straight reference rod before the
   * first frame) and the base, seen from -y (the x-z plane, where bend2 curls the rod), a
   * little from above.
   */
  resetView() {
    this.setCamera(this.preset === "tip" ? "default" : this.preset);
  }

  /**
   * A camera preset: "front" (from -y), "side" (from +x), "top" (from +z), "default" (the
   * three-quarter view) frame the whole rod; "tip" looks at the tip from close by and follows
   * it as it moves (orbiting around it still works).
   */
  setCamera(preset) {
    this.preset = PRESETS[preset] ? preset : "default";
    const L = this.length;
    const f = this.lastFrame;
    const lo = new Vector3(0, 0, 0);
    const hi = new Vector3(0, 0, f ? 0 : L);
    for (const r of f?.rods?.length ? f.rods : f ? [f] : []) { // every rod of the model
      for (let i = 0; r.position && i < r.n; i++) {
        const p = new Vector3(r.position[3 * i], r.position[3 * i + 1], r.position[3 * i + 2]);
        lo.min(p);
        hi.max(p);
      }
    }
    const follow = this.preset === "tip";
    const center = follow ? this.#tip() : lo.clone().add(hi).multiplyScalar(0.5);
    const radius = follow ? 0.12 * L : Math.max(0.5 * hi.distanceTo(lo), 0.15 * L) + 0.05 * L;
    const distance = (1.15 * radius) / Math.sin((this.camera.fov * Math.PI) / 360);
    this.controls.target.copy(center);
    this.camera.position.copy(center).addScaledVector(new Vector3(...PRESETS[this.preset]).normalize(), distance);
    this.controls.update();
    this.dirty = true;
  }

  /** The shown frame's tip, or the straight rod's. */
  #tip() {
    const f = this.lastFrame;
    if (!f) return new Vector3(0, 0, this.length);
    const i = 3 * (f.n - 1);
    return new Vector3(f.position[i], f.position[i + 1], f.position[i + 2]);
  }

  /** The view as a PNG data URL, drawn afresh (the drawing buffer is not kept between frames). */
  snapshot() {
    this.renderer.render(this.scene, this.camera);
    return this.renderer.domElement.toDataURL("image/png");
  }

  /** Shows frame f with one value per point coloured through range (a ColorRange). */
  show(f, values, range) {
    this.lastFrame = f;
    if (this.preset === "tip") {
      // keep the camera where it is relative to the tip: move both by the tip's step
      const tip = this.#tip();
      const step = tip.clone().sub(this.controls.target);
      this.controls.target.add(step);
      this.camera.position.add(step);
    }
    if (!this.tube || this.tube.userData.n !== f.n) this.#makeTube(f.n);
    this.tube.visible = true;
    if (this.rgb.length < 3 * f.n) this.rgb = new Float32Array(3 * f.n);
    for (let i = 0; i < f.n; i++) viridis(range.normalize(values[i]), this.rgb, 3 * i, true);
    const geo = this.tube.geometry;
    const { position, normal, color } = geo.attributes;
    writeTube(f, this.rgb, position.array, normal.array, color.array);
    position.needsUpdate = normal.needsUpdate = color.needsUpdate = true;
    this.#writeOtherRods(f);
    if (this.showDirectors) this.#writeDirectors(f);
    this.#writeAttached(f);
    this.#writeContacts(f);
    this.dirty = true;
  }

  /**
   * Each contact's force on the rod as an arrow from where it touches, to a common scale (the
   * largest a seventh of the rod; none shorter than 2 % of it so small ones stay visible).
   */
  #writeContacts(f) {
    const list = Array.isArray(f.contacts) ? f.contacts : [];
    const n = Math.min(list.length, CONTACT_ARROWS);
    const L = this.length;
    while (this.contacts.children.length < n) {
      this.contacts.add(new ArrowHelper(new Vector3(1, 0, 0), new Vector3(), 0.1 * L, CONTACT_COLOR, 0.02 * L, 0.01 * L));
    }
    let fmax = 1e-300;
    for (let i = 0; i < n; i++) fmax = Math.max(fmax, Math.hypot(...list[i].force));
    const kids = this.contacts.children;
    for (let i = 0; i < kids.length; i++) {
      const arrow = kids[i];
      const c = i < n ? list[i] : null;
      const F = c ? new Vector3(...c.force) : null;
      const mag = F ? F.length() : 0;
      arrow.visible = mag > 0;
      if (!arrow.visible) continue;
      arrow.position.set(...c.point);
      arrow.setDirection(F.normalize());
      arrow.setLength(Math.max((L * mag) / (7 * fmax), 0.02 * L), 0.02 * L, 0.01 * L);
    }
  }

  /**
   * Every rod of a model of several rods but the selected one (which the coloured tube shows),
   * as a grey tube each: a mesh per rod, remade when its point count changes.
   */
  #writeOtherRods(f) {
    const rods = (f.rods || []).filter((r) => r.name !== f.rod && r.position && r.rotation && r.radius);
    const kids = this.others.children;
    if (kids.length !== rods.length || rods.some((r, k) => kids[k].userData.n !== r.n)) {
      this.#clearGroup(this.others);
      for (const r of rods) {
        const geo = new BufferGeometry();
        for (const name of ["position", "normal", "color"]) {
          const attr = new BufferAttribute(new Float32Array(3 * vertexCount(r.n)), 3);
          attr.setUsage(DynamicDrawUsage);
          geo.setAttribute(name, attr);
        }
        geo.setIndex(new BufferAttribute(tubeIndex(r.n), 1));
        const mesh = new Mesh(geo, new MeshStandardMaterial({ vertexColors: true, roughness: 0.6, metalness: 0.05, side: DoubleSide }));
        mesh.frustumCulled = false; // the rods move
        mesh.userData.n = r.n;
        this.others.add(mesh);
      }
    }
    rods.forEach((r, k) => {
      const rgb = new Float32Array(3 * r.n).fill(0.45);
      const { position, normal, color } = kids[k].geometry.attributes;
      writeTube(r, rgb, position.array, normal.array, color.array);
      position.needsUpdate = normal.needsUpdate = color.needsUpdate = true;
    });
  }

  /** Rods drawn besides the selected one (the tests read it). */
  get otherRods() {
    return this.others.children.length;
  }

  /** Contact arrows shown now (the tests read it). */
  get contactArrows() {
    return this.contacts.children.filter((a) => a.visible).length;
  }

  /**
   * What the frame carries besides the rod: a moving base carries the clamp plate along; each
   * attached body is a grey ball at its centre of mass; each pose constraint's target is a red
   * ball, with its reaction on the rod as an arrow at the held point.
   */
  #writeAttached(f) {
    if (this.plate) {
      const b = f.base;
      const pose = new Matrix4();
      if (b) {
        const R = b.rotation;
        pose.set(R[0], R[1], R[2], b.position[0], R[3], R[4], R[5], b.position[1], R[6], R[7], R[8], b.position[2], 0, 0, 0, 1);
      }
      // the plate's own placement under the base, then the base's pose
      const local = new Matrix4().makeRotationX(Math.PI / 2).setPosition(0, 0, -0.006 * this.length);
      this.plate.matrixAutoUpdate = false;
      this.plate.matrix.copy(pose.multiply(local));
    }
    const bodies = Object.values(f.bodies || {});
    const targets = Object.values(f.constraints || {}).filter((c) => c.target);
    const key = `${bodies.length}/${targets.length}`;
    if (this.attached.userData.key !== key) {
      this.#clearAttached();
      const L = this.length;
      for (let i = 0; i < bodies.length; i++) {
        this.attached.add(new Mesh(new SphereGeometry(0.03 * L, 20, 14), new MeshStandardMaterial({ color: 0x9aa4ae, roughness: 0.5 })));
      }
      for (let i = 0; i < targets.length; i++) {
        const ball = new Mesh(new SphereGeometry(0.015 * L, 16, 10), new MeshBasicMaterial({ color: 0xff4d4d }));
        ball.userData.role = "target";
        this.attached.add(ball, new ArrowHelper(new Vector3(1, 0, 0), new Vector3(), 0.1 * L, 0xff4d4d, 0.03 * L, 0.015 * L));
      }
      this.attached.userData.key = key;
    }
    const kids = this.attached.children;
    bodies.forEach((b, i) => kids[i].position.set(...b.position));
    // reactions drawn to a common scale: the largest one a fifth of the rod
    const fmax = Math.max(1e-300, ...targets.map((c) => Math.hypot(...c.force)));
    targets.forEach((c, i) => {
      const ball = kids[bodies.length + 2 * i], arrow = kids[bodies.length + 2 * i + 1];
      ball.position.set(...c.target);
      const F = new Vector3(...c.force), mag = F.length();
      arrow.visible = mag > 0;
      if (mag > 0) {
        arrow.position.set(...c.point);
        arrow.setDirection(F.normalize());
        arrow.setLength(Math.max((0.2 * this.length * mag) / fmax, 0.04 * this.length), 0.03 * this.length, 0.015 * this.length);
      }
    });
  }

  setDirectorsVisible(on) {
    this.showDirectors = on;
    if (on && this.lastFrame) this.#writeDirectors(this.lastFrame);
    if (this.directors) this.directors.visible = on;
    this.dirty = true;
  }

  /** Forgets the rod (another session is about to show). */
  clear() {
    if (this.tube) this.tube.visible = false;
    this.#clearGroup(this.others);
    this.#clearAttached();
    this.#clearGroup(this.contacts);
    this.#clearGroup(this.obstacles);
    if (this.directors) this.directors.visible = false;
    this.lastFrame = null;
    this.dirty = true;
  }

  #clearAttached() {
    this.#clearGroup(this.attached);
    this.attached.userData.key = "";
  }

  #clearGroup(group) {
    for (const c of [...group.children]) {
      group.remove(c);
      c.traverse((o) => {
        o.geometry?.dispose();
        o.material?.dispose();
      });
    }
  }

  #makeTube(n) {
    if (this.tube) {
      this.scene.remove(this.tube);
      this.tube.geometry.dispose();
    }
    const geo = new BufferGeometry();
    const count = vertexCount(n);
    for (const name of ["position", "normal", "color"]) {
      const attr = new BufferAttribute(new Float32Array(3 * count), 3);
      attr.setUsage(DynamicDrawUsage);
      geo.setAttribute(name, attr);
    }
    geo.setIndex(new BufferAttribute(tubeIndex(n), 1));
    const material = this.tube?.material ||
      new MeshStandardMaterial({ vertexColors: true, roughness: 0.55, metalness: 0.05, side: DoubleSide });
    this.tube = new Mesh(geo, material);
    this.tube.frustumCulled = false; // the rod moves; its bounding sphere would go stale
    this.tube.userData.n = n;
    this.scene.add(this.tube);
  }

  #writeDirectors(f) {
    if (!this.directors) {
      const geo = new BufferGeometry();
      geo.setAttribute("position", new BufferAttribute(new Float32Array(DIRECTORS * 18), 3).setUsage(DynamicDrawUsage));
      const colors = new Float32Array(DIRECTORS * 18);
      for (let k = 0; k < DIRECTORS; k++) {
        for (let d = 0; d < 3; d++) colors.set([...DIRECTOR_COLORS[d], ...DIRECTOR_COLORS[d]], 18 * k + 6 * d);
      }
      geo.setAttribute("color", new BufferAttribute(colors, 3));
      this.directors = new LineSegments(geo, new LineBasicMaterial({ vertexColors: true, depthTest: false }));
      this.directors.renderOrder = 1; // drawn over the tube, which would hide d1 and d2 inside it
      this.directors.frustumCulled = false;
      this.scene.add(this.directors);
    }
    const pos = this.directors.geometry.attributes.position;
    const a = pos.array;
    const len = 0.1 * this.length;
    for (let k = 0; k < DIRECTORS; k++) {
      const i = Math.round((k * (f.n - 1)) / (DIRECTORS - 1));
      const [x, y, z] = [f.position[3 * i], f.position[3 * i + 1], f.position[3 * i + 2]];
      for (let d = 0; d < 3; d++) {
        const o = 18 * k + 6 * d;
        // director d is column d of the row-major rotation
        a[o] = x;
        a[o + 1] = y;
        a[o + 2] = z;
        a[o + 3] = x + len * f.rotation[9 * i + d];
        a[o + 4] = y + len * f.rotation[9 * i + 3 + d];
        a[o + 5] = z + len * f.rotation[9 * i + 6 + d];
      }
    }
    pos.needsUpdate = true;
    this.directors.visible = this.showDirectors;
  }

  #resize() {
    const w = Math.max(1, this.container.clientWidth);
    const h = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  }
}

/** Where WebGL is missing: the same interface, a message instead of a picture. */
class NoView {
  constructor(container, error) {
    const note = document.createElement("p");
    note.className = "no-webgl";
    note.textContent = `The 3D view needs WebGL, which this browser does not give: ${error.message}`;
    container.append(note);
    this.renders = 0;
  }

  setModel() {}
  setPalette() {}
  setCamera() {}
  snapshot() {
    return null;
  }
  resetView() {}
  show() {}
  setDirectorsVisible() {}
  clear() {}
}

/** A RodView, or a NoView saying why there is none; the plots and controls work either way. */
export function createRodView(container) {
  try {
    return new RodView(container);
  } catch (e) {
    return new NoView(container, e);
  }
}
