"""Fresh, readable names that never collide with the user's."""
import builtins
import keyword


class Namer:
    """Hands out names that are unused in the function and in each other."""

    def __init__(self, taken=()):
        self.taken = set(taken) | set(dir(builtins)) | set(keyword.kwlist)
        self.next_suffix = {}          # base -> the suffix to try first (keeps fresh() O(1))

    def reserve(self, name):
        self.taken.add(name)

    def fresh(self, base):
        base = base if base.isidentifier() else "_t"
        if base not in self.taken:
            self.taken.add(base)
            return base
        n = self.next_suffix.get(base, 2)
        while f"{base}{n}" in self.taken:
            n += 1
        name = f"{base}{n}"
        self.taken.add(name)
        self.next_suffix[base] = n + 1
        return name

    def adjoint(self, name):
        """`x` -> `dx`, `W1` -> `dW1`, `_sum` -> `d_sum`."""
        return self.fresh("d" + name if not name.startswith("d") or name.startswith("_")
                          else "d_" + name)
