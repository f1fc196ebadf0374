"""Spectra, Papetti's eq 6 root, parameter units."""

from decimal import Decimal, getcontext

import numpy as np
import pytest
import xarray as xr

import vibro


def peaks(spec, n):
    """Frequencies (Hz) of the n highest local maxima of a spectrum."""
    a = spec.values
    i = np.flatnonzero((a[1:-1] > a[:-2]) & (a[1:-1] >= a[2:])) + 1
    i = i[np.argsort(-a[i])][:n]
    return np.sort(spec["frequency"].values[i])


def test_bar_modal_peaks(bar):
    """The 3-mode bar rings at its modes: each of the three highest peaks of
    the struck point's spectrum lies within one bin of a modal frequency."""
    u = bar.signal(0, "bodies/bar/strike/u")
    spec = vibro.spectrum(u)
    modes = bar.scene(0).modes("bar")["freq"].to_numpy()
    fs = bar.scene(0).fs
    assert spec.attrs["bin"] == pytest.approx(fs / u.sizes["time"], rel=1e-12)
    assert spec["frequency"].attrs["units"] == "Hz" and spec.attrs["units"] == "dB re 1 m"
    got = peaks(spec, 3)
    assert np.all(np.abs(got - modes) <= spec.attrs["bin"]), (got, modes)
    rect = peaks(vibro.spectrum(u, window="boxcar"), 3)
    assert np.all(np.abs(rect - modes) <= spec.attrs["bin"]), (rect, modes)
    # and the window matters: the hammer's own spectrum has no such peaks
    h = vibro.spectrum(bar.signal(0, "bodies/hammer/u").sel(time=slice(0, 0.001)))
    assert h.sizes["frequency"] < spec.sizes["frequency"]


def test_spectrum_amplitude():
    """A sinusoid of amplitude A on a bin reads A: 20 log10 A in dB."""
    fs, n, a, f0 = 8000.0, 4000, 2.385e-3, 500.0
    t = np.arange(n) / fs
    da = xr.DataArray(a * np.sin(2 * np.pi * f0 * t) + 7e-4, dims=("time",),
                      coords={"time": t}, name="x", attrs={"units": "m"})
    for window in ("hann", "boxcar", "hamming", "blackman"):
        lin = vibro.spectrum(da, window=window, db=False)
        k = int(np.argmax(lin.values[1:])) + 1
        assert lin["frequency"].values[k] == f0
        assert lin.values[k] == pytest.approx(a, rel=1e-9)
        assert lin.values[0] == pytest.approx(7e-4, rel=1e-9)
    db = vibro.spectrum(da)
    assert db.sel(frequency=f0).item() == pytest.approx(20 * np.log10(a), abs=1e-7)
    with pytest.raises(ValueError, match="unknown window"):
        vibro.spectrum(da, window="kaiser")
    bad = da.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        vibro.spectrum(bad)
    uneven = da.assign_coords(time=t ** 1.1)
    with pytest.raises(ValueError, match="uniformly spaced"):
        vibro.spectrum(uneven)


def test_spectrogram(bar):
    u = bar.signal(0, "bodies/bar/strike/u")
    sg = vibro.spectrogram(u, nperseg=2048)
    assert sg.dims == ("frequency", "time") and sg.attrs["nperseg"] == 2048
    assert sg.sizes["frequency"] == 1025 and sg.attrs["hop"] == 512
    assert sg.sizes["time"] == (u.sizes["time"] - 2048) // 512 + 1
    # the first mode dominates every segment, and every mode decays
    top = sg["frequency"].values[sg.values.argmax(axis=0)]
    assert np.all(np.abs(top - 440.0) <= 44100.0 / 2048)
    for f in (440.0, 1212.6, 2377.8):
        row = sg.sel(frequency=f, method="nearest").values
        assert row[-1] < row[0] - 10
    # default segment: the power of two nearest 20 ms
    assert vibro.spectrogram(u).attrs["nperseg"] == 1024


def test_v_out_exact(study, bounce):
    """The package's eq 6 root against the C library's, in every event."""
    for st in (study, bounce):
        ev = st.events()
        mu = st.contacts().set_index("scene")["mu"].reindex(ev["scene"]).to_numpy()
        mine = vibro.v_out_exact(ev["v_in"].to_numpy(), mu)
        assert np.allclose(mine, ev["v_out_exact"], rtol=1e-12, atol=0)
    # eq 6 itself, in 40-digit decimal arithmetic
    getcontext().prec = 40
    v = np.array([1e-6, 0.01, 0.3, 1.0, 10.0, 100.0])
    for mu in (0.1, 0.6, 5.0):
        w = vibro.v_out_exact(v, mu)
        assert np.all((w < 0) & (w >= -1 / mu))
        for vi, wi in zip(v, w):
            if mu * vi > 20:      # 1 + mu v_out < 1e-8: w is -1/mu to double precision
                assert wi == pytest.approx(-1 / mu, rel=1e-8)
                continue
            m, a, b = Decimal(mu), Decimal(vi), Decimal(wi)
            lhs = m * b - (1 + m * b).ln()
            rhs = m * a - (1 + m * a).ln()
            # an error dw in w moves the left side by |mu w mu / (1 + mu w)| dw
            slope = abs(m * m * b / (1 + m * b))
            assert abs(lhs - rhs) <= slope * abs(b) * Decimal(4e-15) + Decimal(1e-300), \
                (mu, vi, wi, lhs - rhs)
    # mu v_in = 5000: 1 + mu v_out = exp(-4992) is below the smallest double
    assert vibro.v_out_exact(1e3, 5.0) == -0.2
    assert vibro.v_out_exact(0.7, 0.0) == -0.7
    assert np.isnan(vibro.v_out_exact(np.nan, 0.5))


def test_param_units():
    u = vibro.param_units
    assert u("contacts.hit.k") == "N/m^alpha" and u("contacts.link.k", "spring") == "N/m"
    assert u("bodies.bar.freq[2]") == "Hz" and u("bodies.hammer.v0") == "m/s"
    assert u("bodies.shaker.drive.freq") == "Hz" and u("bodies.shaker.drive.amplitude") == "m"
    assert u("forces.drive.amplitude") == "N" and u("forces.drive.freq") == "Hz"
    assert u("bodies.plate.preset.youngs") == "Pa" and u("scene.fs") == "Hz"
    assert u("contacts.roll.gap_drive.speed") == "m/s" and u("record.every") == "1"
    assert u("bodies.bar.loss[1]") == "s" and u("bodies.bar.loss[0]") == "1/s"
    assert u("nothing.at.all") == ""
