"""Analysis helpers: spectra, Papetti's eq 6 root, units of parameter paths."""

import re

import numpy as np

# Units of the numeric settings a sweep can name (doc/scene-file.md, "Scene files").
# A vibro-1 file writes "SI" for every swept column: these say which.
_SCENE = {"fs": "Hz", "duration": "s", "gravity": "m/s^2"}
_RECORD = {"every": "1"}
_BODY = {"mass": "kg", "u0": "m", "v0": "m/s", "k": "N/m", "c": "N s/m",
         "position": "m", "freq": "Hz", "quality": "1", "t60": "s", "zeta": "1",
         "loss": "1/s", "q0": "m", "dq0": "m/s", "gravity": "1"}
_PRESET = {"length": "m", "width": "m", "thickness": "m", "youngs": "Pa",
           "density": "kg/m^3", "poisson": "1", "tension": "N",
           "linear_density": "kg/m", "radius": "m", "surface_density": "kg/m^2",
           "nmodes": "1", "x": "m", "y": "m"}
_DRIVE = {"amplitude": "m", "freq": "Hz", "phase": "rad", "speed": "m/s",
          "spacing": "m", "start": "m", "scale": "1", "rms": "m",
          "bandwidth": "Hz", "seed": "1", "components": "1"}
_CONTACT = {"k": "N/m^alpha", "alpha": "1", "mu": "s/m", "h": "m", "gap": "m",
            "c": "N s/m", "s": "1", "tolerance": "1", "max_iterations": "1"}
_FORCE = {"value": "N", "amplitude": "N", "freq": "Hz", "phase": "rad"}


def param_units(path, law=None):
    """The units of a parameter path such as `contacts.hit.k` or
    `bodies.bar.freq[2]` (doc/scene-file.md, "Scene files"); "" when unknown.

    `law` refines a contact's `k`: N/m for `spring`, N/m^alpha otherwise."""
    parts = re.sub(r"\[[0-9]+\]", "", path).split(".")
    key, head = parts[-1], parts[0]
    inner = parts[2:-1]            # groups inside the named object
    if "drive" in inner or "gap_drive" in inner:
        return _DRIVE.get(key, "")
    if "preset" in inner:
        return _PRESET.get(key, "")
    if head == "scene":
        return _SCENE.get(key, "")
    if head == "record":
        return _RECORD.get(key, "")
    if head == "bodies":
        if key == "loss" and path.endswith("[1]"):
            return "s"            # sigma = b1 + b3 omega^2
        return _BODY.get(key, "")
    if head == "contacts":
        if key == "k" and law == "spring":
            return "N/m"
        return _CONTACT.get(key, "")
    if head == "forces":
        return _FORCE.get(key, "")
    return ""


def v_out_exact(v_in, mu):
    """Papetti eq 6: the exit velocity (m/s, < 0) of a Hunt-Crossley impact
    entering at v_in (m/s, > 0) with damping mu (s/m), the root of
        mu v_out - log|1 + mu v_out| = mu v_in - log|1 + mu v_in|
    in (-1/mu, 0).  Arrays broadcast; mu = 0 gives -v_in.

    With y = 1 + mu v_out the root solves y - 1 - log y = C; in z = 1 - y
    the function -z - log(1 - z) - C is increasing and convex on (0, 1), so
    Newton from z0 = 1 - exp(-C - 1) (where it is positive) falls
    monotonically to the root."""
    v_in, mu = np.broadcast_arrays(np.asarray(v_in, dtype=float),
                                   np.asarray(mu, dtype=float))
    out = np.full(v_in.shape, np.nan)
    elastic = mu == 0
    out[elastic] = -v_in[elastic]
    ok = ~elastic & np.isfinite(v_in) & np.isfinite(mu) & (mu > 0) & (v_in >= 0)
    m, v = mu[ok], v_in[ok]
    c = _x_minus_log1p(m * v)
    # Far from the wall's limit: Newton in z
    z = -np.expm1(-c - 1.0)
    err = np.seterr(divide="ignore", invalid="ignore")
    for _ in range(200):
        h = _x_minus_log1p(-z) - c
        step = h * (1.0 - z) / np.where(z > 0, z, 1.0)
        z_new = np.where((z > 0) & (z < 1), z - step, z)
        done = np.all(np.abs(z_new - z) <= 4e-16 * np.abs(z))
        z = z_new
        if done:
            break
    np.seterr(**err)
    # Near it (C > 30, y < 1e-13): y = exp(y - C - 1), a contraction by y
    big = c > 30
    y = np.exp(-c[big] - 1.0)
    for _ in range(3):
        y = np.exp(y - c[big] - 1.0)
    z[big] = 1.0 - y
    out[ok] = -z / m
    return out


def _x_minus_log1p(x):
    """x - log(1 + x) without the cancellation for small |x| (series)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x - np.log1p(x)
    small = np.abs(x) < 1e-2
    xs = x[small]
    # x^2/2 - x^3/3 + x^4/4 - ...: 9 terms reach 1e-18 relative at |x| = 0.01
    acc = np.zeros_like(xs)
    for k in range(10, 1, -1):
        acc = xs * (acc + (1.0 if k % 2 == 0 else -1.0) / k)
    out[small] = acc * xs
    return out


def _rate(da):
    """The sample rate (Hz) of a DataArray on a uniform time coordinate."""
    if "time" not in da.coords or da.sizes.get("time", 0) < 2:
        raise ValueError("a spectrum needs a signal on a 'time' coordinate with "
                         "at least 2 samples")
    t = np.asarray(da["time"].values, dtype=float)
    dt = np.diff(t)
    step = (t[-1] - t[0]) / (len(t) - 1)
    if not step > 0 or np.max(np.abs(dt - step)) > 1e-6 * step:
        raise ValueError("a spectrum needs uniformly spaced time samples")
    return 1.0 / step


def _window(name, n):
    """A periodic (DFT-even) window of n samples: a sinusoid centred on a
    bin then leaks into no other bin beyond the window's own few."""
    k = 2.0 * np.pi * np.arange(n) / n
    if name in (None, "boxcar", "rect", "rectangular"):
        return np.ones(n)
    if name in ("hann", "hanning"):
        return 0.5 - 0.5 * np.cos(k)
    if name == "hamming":
        return 0.54 - 0.46 * np.cos(k)
    if name == "blackman":
        return 0.42 - 0.5 * np.cos(k) + 0.08 * np.cos(2 * k)
    raise ValueError("unknown window '%s' (valid: hann, hamming, blackman, boxcar)" % name)


def _db(amp, units):
    """20 log10(amp / 1 unit), with silence at 300 dB below the peak."""
    peak = np.max(amp) if amp.size else 0.0
    floor = peak * 1e-15 if peak > 0 else np.finfo(float).tiny
    return 20.0 * np.log10(np.maximum(amp, floor)), "dB re 1 %s" % (units or "unit")


def spectrum(signal, window="hann", db=True):
    """The one-sided magnitude spectrum of a signal (an xarray.DataArray on
    a uniform `time` coordinate, as `Study.signal` returns).

    Returns a DataArray on `frequency` (Hz, bins fs/N apart, N the number of
    samples: no zero padding).  A sinusoid of amplitude A at a bin's
    frequency reads A (the window's coherent gain removed), in dB re 1 unit
    of the signal with db=True (attrs `units` says which), else in the
    signal's units.  Non-finite samples raise ValueError."""
    import xarray as xr
    fs = _rate(signal)
    x = np.asarray(signal.values, dtype=float)
    if x.ndim != 1:
        raise ValueError("a spectrum needs a 1-d signal (got dims %s)" % (signal.dims,))
    if not np.all(np.isfinite(x)):
        raise ValueError("signal '%s' has non-finite samples" % signal.name)
    w = _window(window, len(x))
    amp = np.abs(np.fft.rfft(x * w)) * 2.0 / np.sum(w)
    amp[0] /= 2.0
    if len(x) % 2 == 0:
        amp[-1] /= 2.0
    freq = np.fft.rfftfreq(len(x), 1.0 / fs)
    units = signal.attrs.get("units", "")
    if db:
        amp, units = _db(amp, units)
    return xr.DataArray(amp, coords={"frequency": ("frequency", freq, {"units": "Hz"})},
                        dims=("frequency",), name=signal.name,
                        attrs={"units": units, "window": str(window), "fs": fs,
                               "bin": fs / len(x)})


def spectrogram(signal, nperseg=None, overlap=0.75, window="hann", db=True):
    """The short-time magnitude spectrum of a signal on a uniform `time`
    coordinate: a DataArray on (`frequency` (Hz), `time` (s, the centre of
    each segment)), scaled as `spectrum`.  nperseg defaults to the power of
    two nearest 20 ms (at most the signal's length); segments overlap by
    `overlap` (0 <= overlap < 1)."""
    import xarray as xr
    fs = _rate(signal)
    x = np.asarray(signal.values, dtype=float)
    if x.ndim != 1:
        raise ValueError("a spectrogram needs a 1-d signal (got dims %s)" % (signal.dims,))
    if not np.all(np.isfinite(x)):
        raise ValueError("signal '%s' has non-finite samples" % signal.name)
    if nperseg is None:
        nperseg = int(2 ** round(np.log2(max(0.02 * fs, 8))))
    nperseg = int(min(nperseg, len(x)))
    if nperseg < 2:
        raise ValueError("a spectrogram needs segments of at least 2 samples")
    if not 0 <= overlap < 1:
        raise ValueError("overlap must be in [0, 1) (got %g)" % overlap)
    hop = max(1, int(round(nperseg * (1 - overlap))))
    starts = np.arange(0, len(x) - nperseg + 1, hop)
    w = _window(window, nperseg)
    frames = np.stack([x[s:s + nperseg] * w for s in starts], axis=1)
    amp = np.abs(np.fft.rfft(frames, axis=0)) * 2.0 / np.sum(w)
    amp[0] /= 2.0
    if nperseg % 2 == 0:
        amp[-1] /= 2.0
    t0 = float(signal["time"].values[0])
    times = t0 + (starts + (nperseg - 1) / 2.0) / fs
    freq = np.fft.rfftfreq(nperseg, 1.0 / fs)
    units = signal.attrs.get("units", "")
    if db:
        amp, units = _db(amp, units)
    return xr.DataArray(amp, dims=("frequency", "time"),
                        coords={"frequency": ("frequency", freq, {"units": "Hz"}),
                                "time": ("time", times, {"units": "s"})},
                        name=signal.name,
                        attrs={"units": units, "window": str(window), "fs": fs,
                               "nperseg": nperseg, "hop": hop})
