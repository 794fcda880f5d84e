"""The package s2s_ad.runtime, as generated code, the templates and `--standalone` copies see it:
one name for each helper, whichever of the package's modules defines it."""
import pkgutil

from s2s_ad import runtime
from s2s_ad.export.runtime_source import definitions_of, runtime_modules


def _package_modules():
    return [m for m in runtime_modules() if m.__name__.startswith(runtime.__name__ + ".")]


def test_every_module_of_the_package_is_a_runtime_module():
    names = {m.__name__ for m in _package_modules()}
    assert names == {f"{runtime.__name__}.{info.name}"
                     for info in pkgutil.iter_modules(runtime.__path__)}


def test_the_package_offers_every_public_helper_of_its_modules():
    """Templates and emitters write `runtime.unbroadcast`, and written modules import from
    s2s_ad.runtime: a helper only its module offers would break them."""
    missing = [f"{m.__name__}.{name}" for m in _package_modules() for name in definitions_of(m)
               if not name.startswith("_") and getattr(runtime, name, None) is not vars(m)[name]]
    assert not missing


def test_no_two_runtime_modules_define_one_name():
    """`--standalone` copies definitions from several modules into one namespace, where a name
    defined twice would mean the last copy."""
    seen = {}
    for module in runtime_modules():
        for name in definitions_of(module):
            assert name not in seen, f"{name} is defined in {seen[name]} and {module.__name__}"
            seen[name] = module.__name__


def test_a_module_comes_after_the_runtime_modules_it_imports_from():
    """Copies keep this order: a module-level statement finds what it reads defined above it."""
    order = [m.__name__ for m in runtime_modules()]
    for position, module in enumerate(runtime_modules()):
        for value in vars(module).values():
            owner = getattr(value, "__module__", None)
            if owner in order and owner != module.__name__:
                assert order.index(owner) < position, (module.__name__, owner)
