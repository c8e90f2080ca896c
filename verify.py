import numpy as np, sympy as sp
rng = np.random.default_rng(0)
x,y,m,c,p = sp.symbols('x y m c p', real=True)
# contra_real_no_root: x^2-2x+2 = (x-1)^2+1 >= 1 > 0, no real root; (x-1)^2<0 false for every real x
print('real roots of x^2-2x+2:', sp.solve(x**2-2*x+2, x), ' min (x-1)^2 over grid:', min((t-1)**2 for t in np.linspace(-5,5,10001)))
# contra_two_reals
print('real solutions x^2+y^2=1,x+y=2:', sp.solve([x**2+y**2-1, x+y-2],[x,y]))
# normal: E[Z^2]=m^2+1 >= 1 > 1/2
Z = rng.normal(0.3, 1, 10**6); print('Normal(0.3,1) E[Z^2] sample', (Z**2).mean(), '= m^2+1 =', 0.09+1)
# rademacher: E[R^2] = 1 for all outcomes; c^2+2 >= 2
# bernoulli: max p(1-p) on [0,1]
ps = np.linspace(0,1,100001); print('max p(1-p) =', (ps*(1-ps)).max())
# discrete uniform: E[D]=(a+b)/2 = a-1 => b = a-2 < a, but law needs b >= a
for a in range(-3,4):
    for b in range(a, a+5):
        assert (a+b)/2 >= a
print('DiscreteUniform(a,b) with b>=a always has E[D] >= a')
# family covariance: eigenvalues
C = np.full((4,4), -0.5); np.fill_diagonal(C, 1); print('eig 4x4 (-1/2 off diag):', np.linalg.eigvalsh(C), ' ones^T C ones =', C.sum())
C3 = np.full((3,3), -1.0); np.fill_diagonal(C3, 1); print('eig 3x3 (-1 off diag):', np.linalg.eigvalsh(C3), ' ones^T C ones =', C3.sum())
# random check: Var of sum of 4 random vectors never negative
X = rng.normal(size=(4, 1000)); print('sample Var(sum) >= 0:', np.var(X.sum(0)) >= 0)
# tanh mean in (-1,1); E|X| >= E[X]
W = rng.standard_cauchy(10**5); print('E tanh range', np.tanh(W).mean(), ' E|X|-E[X] >= 0:', np.abs(W).mean()-W.mean() >= 0)
