"""A scene stepped in blocks, with its state in hand: `vibro.Stepper`.

After MuJoCo's mj_step(model, data) and PyChrono's DoStepDynamics: a
controller, a co-simulation or an interactive session advances a scene by
some steps or to a time, reads its state (a point's displacement and
velocity, a body's modal coordinates, a contact's force), changes a
parameter (a force's amplitude, a wall's position, a contact's stiffness)
and advances again.  It runs in this process through libvibro's stepping
API (lib/vibro.h, lib/run/stepping.c): a scene advanced in blocks of any
size gives the same bits as `vibro.simulate` of the whole scene.

    with vibro.Stepper("scenes/bouncing-ball.cfg") as s:
        while not s.done:
            s.advance(100)
            u, v = s.point("ball")
            if u > 0.01:
                s.set("forces.push.amplitude", 0.0)
        sim = s.finish("ball.h5")     # a Simulation, and the usual file
"""

import ctypes
import numbers

import numpy as np

from . import _lib
from ._errors import VibroError
from ._run import Simulation, _events, _signals, _source, _warn_check

_NOW = {"force": 0, "compression": 1, "rate": 2}


class Stepper:
    """A scene of a scene file or text (or a dict, see scene_text) set at
    t = 0 and stepped by its caller.  `index` picks a scene of a study.

    Attributes (read-only): `t` (s, the time of the state), `steps` (taken),
    `total` (the scene's steps, round(duration fs)), `done` (all taken),
    `status` ("running" until the run ends).  Use it as a context manager, or call `close`."""

    def __init__(self, scene, index=0):
        self._lib = lib = _lib.library()
        source, name = _source(scene)
        self._where = name or source
        self._st = _lib.load_study(source, name)
        self._sc, self._run = ctypes.c_void_p(), ctypes.c_void_p()
        self._ended = False
        try:
            n = lib.vb_study_scenes(self._st)
            if not isinstance(index, numbers.Integral) or not 0 <= index < n:
                raise VibroError("%s: no scene %r (valid: 0 to %d)" % (self._where, index, n - 1))
            self.index = int(index)
            err = ctypes.create_string_buffer(_lib.ERRLEN)
            rc = lib.vb_study_scene(self._st, self.index, ctypes.byref(self._sc), err, _lib.ERRLEN)
            if rc == _lib.VB_OK:
                rc = lib.vb_run_alloc(self._sc, ctypes.byref(self._run), err, _lib.ERRLEN)
            if rc != _lib.VB_OK:
                raise VibroError(_lib.text(err.value) or _lib.text(lib.vb_strerror(rc)), 1)
            _warn_check(_lib.lines(lib.vb_scene_warnings, self._sc), self._where, 2)
            self._bodies = self._names(lib.vb_scene_body_name)
            self._contacts = self._names(lib.vb_scene_contact_name)
            rc = lib.vb_run_begin(self._run)
            if rc != _lib.VB_OK:
                self._ended = True
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ helpers
    def _names(self, fn):
        out, k = {}, 0
        while True:
            got = fn(self._sc, k)
            if got is None:
                return out
            out[_lib.text(got)] = k
            k += 1

    def _body(self, body):
        if body not in self._bodies:
            raise VibroError("%s: no body '%s' (valid: %s)"
                             % (self._where, body, ", ".join(sorted(self._bodies))))
        return self._bodies[body]

    def _contact(self, contact):
        if contact not in self._contacts:
            raise VibroError("%s: no contact '%s' (valid: %s)"
                             % (self._where, contact, ", ".join(sorted(self._contacts))))
        return self._contacts[contact]

    def _open(self):
        if not self._run:
            raise VibroError("%s: the stepper is closed" % self._where)

    # ------------------------------------------------------------ stepping
    @property
    def t(self):
        self._open()
        return self._lib.vb_run_now(self._run)

    @property
    def steps(self):
        self._open()
        return self._lib.vb_run_steps_done(self._run)

    @property
    def total(self):
        self._open()
        return self._lib.vb_run_steps_total(self._run)

    @property
    def done(self):
        return self._ended or self.steps >= self.total

    @property
    def status(self):
        self._open()
        return _lib.text(self._lib.vb_run_status(self._run)) if self._ended else "running"

    def _check(self, rc):
        if rc == _lib.VB_EINVAL and not self._ended:
            raise VibroError("%s: a stepper advances by a whole number of steps >= 0"
                             % self._where)
        if rc != _lib.VB_OK:
            self._ended = True
            raise VibroError("%s: %s" % (self._where, _lib.text(self._lib.vb_run_status(self._run))),
                             1)
        return self

    def advance(self, steps=1):
        """Take up to `steps` steps more (fewer at the scene's end).  A run
        that diverges or whose Newton fails ends there: VibroError with its
        status (finish still gives what was recorded)."""
        self._open()
        if not isinstance(steps, numbers.Integral) or steps < 0:
            raise VibroError("%s: advance(%r): a whole number of steps >= 0" % (self._where, steps))
        if self._ended:
            raise VibroError("%s: the run has ended (%s)" % (self._where, self.status))
        return self._check(self._lib.vb_run_advance(self._run, int(steps)))

    def advance_to(self, t):
        """Step to the step nearest time `t` (s), at most the scene's end."""
        self._open()
        if self._ended:
            raise VibroError("%s: the run has ended (%s)" % (self._where, self.status))
        if not t >= 0:
            raise VibroError("%s: advance_to(%r): a time >= 0 s" % (self._where, t))
        return self._check(self._lib.vb_run_advance_to(self._run, float(t)))

    def run(self, block, callback):
        """Advance in blocks of `block` steps to the end, calling
        callback(self) after each (it may read the state and set
        parameters); a callback that returns False stops the stepping."""
        while not self.done:
            self.advance(block)
            if callback(self) is False:
                break
        return self

    # ------------------------------------------------------------ state
    def point(self, body, point=0):
        """(u, v): point `point` (an index; a mass's or wall's only point is
        0) of `body` now, m and m/s."""
        self._open()
        u, v = ctypes.c_double(), ctypes.c_double()
        if self._lib.vb_run_point_now(self._run, self._body(body), int(point), ctypes.byref(u),
                                      ctypes.byref(v)) != _lib.VB_OK:
            raise VibroError("%s: body '%s' has no point %r" % (self._where, body, point))
        return u.value, v.value

    def modes(self, body):
        """(q, v): the modal displacements (m) and velocities (m/s) of a mass
        (one) or a modal body now, as numpy arrays."""
        self._open()
        b = self._body(body)
        n = self._lib.vb_run_modes_now(self._run, b, None, None, 0)
        if n < 0:
            raise VibroError("%s: '%s' is a wall: it has no modes" % (self._where, body))
        q, v = (ctypes.c_double * max(n, 1))(), (ctypes.c_double * max(n, 1))()
        self._lib.vb_run_modes_now(self._run, b, q, v, n)
        return np.array(q[:n]), np.array(v[:n])

    def contact(self, contact):
        """{"force": N, "compression": m, "rate": m/s} of a contact now (a
        distributed contact's point: "neck[3]"); a contact with friction
        (issue 30) adds "ft" (N, on B along +w), "slip" (m/s, over the last
        step), "friction_work" (J), "stick" (True while it sticks) and, under
        the elasto-plastic law, "bristle" (m), as its signals have them."""
        self._open()
        c = self._contact(contact)
        lib = self._lib
        out = {k: lib.vb_run_contact_now(self._run, c, w) for k, w in _NOW.items()}
        ft = lib.vb_run_friction_force(self._run, c)
        if ft == ft:                       # NaN: no friction
            out.update(ft=ft, slip=lib.vb_run_friction_slip(self._run, c),
                       friction_work=lib.vb_run_friction_work(self._run, c),
                       stick=lib.vb_run_friction_sticks(self._run, c) == 1.0)
            z = lib.vb_run_friction_bristle(self._run, c)
            if z == z:
                out["bristle"] = z
        return out

    def set(self, path, value):
        """Change a parameter from the next step on: forces.F.value,
        .amplitude, .freq, .phase; bodies.WALL.position; contacts.C.gap or
        a parameter of its law (contacts.hit.k).  Bad paths and values
        raise VibroError naming what is valid."""
        self._open()
        err = ctypes.create_string_buffer(_lib.ERRLEN)
        if self._lib.vb_run_set(self._run, str(path).encode(), float(value), err,
                                _lib.ERRLEN) != _lib.VB_OK:
            raise VibroError("%s: %s" % (self._where, _lib.text(err.value)))
        return self

    # ------------------------------------------------------------ the end
    def finish(self, out=None):
        """End the run (before the scene's end: there, with status "ended at
        t=T s by the caller") and return a Simulation as vibro.simulate
        does; with `out`, also write the usual output file (a scene of no
        sweep), by the writer's crash-safe path."""
        self._open()
        lib = self._lib
        code = lib.vb_run_end(self._run)
        self._ended = True
        status = _lib.text(lib.vb_run_status(self._run))
        title = _lib.text(lib.vb_scene_title(self._sc))
        if out is not None:
            import os
            err = ctypes.create_string_buffer(_lib.ERRLEN)
            if lib.vb_study_write_run(self._st, self._run, os.fsencode(out), err,
                                      _lib.ERRLEN) != _lib.VB_OK:
                raise VibroError(_lib.text(err.value), 1)
        st, i = self._st, self.index
        params = {_lib.text(lib.vb_study_param(st, p)): lib.vb_study_value(st, i, p)
                  for p in range(lib.vb_study_nparams(st))}
        units = {_lib.text(lib.vb_study_param(st, p)): _lib.text(lib.vb_study_param_units(st, p))
                 for p in range(lib.vb_study_nparams(st))}
        signals = _signals(lib, self._sc, self._run)
        signals.attrs["energy_balance_error"] = lib.vb_run_balance_error(self._run)
        signals.attrs["energy_balance_worst"] = lib.vb_run_balance_worst(self._run)
        signals.attrs.update({"scene": title, "status": status, "status_code": code,
                              "source": self._where})
        events = _events(lib, self._sc, self._run, i, params, units)
        return Simulation(signals, events, status, code, title, i, params)

    def close(self):
        """Free the run (also after finish); a closed stepper reads nothing."""
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        if getattr(self, "_run", None):
            lib.vb_run_free(self._run)
            self._run = ctypes.c_void_p()
        if getattr(self, "_sc", None):
            lib.vb_scene_free(self._sc)
            self._sc = ctypes.c_void_p()
        if getattr(self, "_st", None):
            lib.vb_study_free(self._st)
            self._st = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        self.close()

    def __repr__(self):
        if not self._run:
            return "<vibro.Stepper %r: closed>" % self._where
        return "<vibro.Stepper %r: step %d of %d, t = %g s, %s>" % (
            self._where, self.steps, self.total, self.t, self.status)
