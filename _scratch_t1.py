import numpy as np, s2s_ad as ad
def f(x, y):
    return np.sum(x ** 2 * y / np.sum(x, axis=1, keepdims=True))
df = ad.grad(f, wrt=(0,1))
print(ad.source(df))
x = np.random.rand(3,4)+0.5; y = np.random.rand(4)
print(df(x,y))
