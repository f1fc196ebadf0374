"""vibro for Python: read, run and plot vibro studies.

    import vibro
    study = vibro.open("sweep.h5")            # a finished (or running) study
    ev = study.events()                       # every impact, one DataFrame, with cor
    ev.plot.scatter("v_in", "cor")            # COR against impact velocity

    u = study.signal(0, "bodies/bar/strike/u")     # xarray.DataArray on time (s)
    spec = vibro.spectrum(u)                       # dB against frequency (Hz)

    study = vibro.run({"scene": {...}, "bodies": [...], ...}, "out.h5")
    sim = vibro.simulate({"scene": {...}, ...})    # one scene, in memory:
    sim.signals["contacts.hit.force"]              # an xarray.Dataset on time (s)
    sim.events                                     # its impacts, as study.events()
    text = vibro.scene_text({...})            # libconfig text of a scene or study

    # a study whose scenes have an `analysis` block (issue 20):
    study.sections()                          # Poincare sections, one row per sample
    study.impact_map()                        # every impact after the transient
    study.orbits()                            # class, period, attractor per scene

    # a study with friction (issue 30):
    study.phases()                            # stick and slip phases, one row each
    study.table["stick_share:rub"]            # per-contact friction_work, stick_share
    vibro.friction_trace(study, study.scene(0))  # t, slip, ft, N, stick, |ft|/N
    vibro.plot_friction(ax, study, 0)         # the traced curve and the law's
    vibro.plot_stickslip(ax, study, 0)        # w against vw, stick/slip coloured
    vibro.schelleng_regimes(study)            # a bow sweep's regimes (doc/friction.md)
    vibro.plot_bifurcation(ax, study)         # coloured by period, with a legend

Scenes and studies run in this process through libvibro (ctypes) when it
loads (vibro._lib.candidates() lists where it is looked for), else through
the vibro program.

Files of layout "vibro-1", "vibro-2" and "vibro-3" are read alike; the root attribute
`format` decides how.  Needs numpy, h5py, pandas and xarray (Debian:
python3-numpy python3-h5py python3-pandas python3-xarray).
"""

from ._errors import VibroError
from ._study import open, Study, Scene, FORMATS
from ._run import run, simulate, Simulation, VibroWarning, scene_text, program
from ._step import Stepper
from ._analysis import spectrum, spectrogram, v_out_exact, param_units
from ._orbits import orbit_label
from ._figures import (plot_section, plot_bifurcation, plot_map, plot_basin,
                       bifurcation_data, param_label, plot_friction, plot_stickslip,
                       plot_schelleng, friction_trace, friction_law_curve,
                       schelleng_regimes)

__version__ = "0.1.0"

__all__ = ["open", "run", "simulate", "Simulation", "Stepper", "scene_text", "program", "Study", "Scene",
           "VibroError", "VibroWarning",
           "spectrum", "spectrogram", "v_out_exact", "param_units", "FORMATS",
           "orbit_label", "plot_section", "plot_bifurcation", "plot_map", "plot_basin",
           "bifurcation_data", "param_label", "plot_friction", "plot_stickslip",
           "plot_schelleng", "friction_trace", "friction_law_curve", "schelleng_regimes",
           "__version__"]
