"""Generated from records.template_source: the Record __init__ templates of the compile path."""
# ruff: noqa
# mypy: ignore-errors
# _M and _fN are the globals records.py gives each __init__ (its real defaults too)
_M = None


def init_(self, ):
  pass


def init_d(self, _a0=_M):
  self._a0 = _a0


def init_dd(self, _a0=_M, _a1=_M):
  self._a0 = _a0
  self._a1 = _a1


def init_dddd(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3


def init_ddddd(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4


def init_dddddddd(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7


def init_dddfffddddddddddddfdddddddddddddddddffd(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M, _a15=_M, _a16=_M, _a17=_M, _a18=_M, _a19=_M, _a20=_M, _a21=_M, _a22=_M, _a23=_M, _a24=_M, _a25=_M, _a26=_M, _a27=_M, _a28=_M, _a29=_M, _a30=_M, _a31=_M, _a32=_M, _a33=_M, _a34=_M, _a35=_M, _a36=_M, _a37=_M, _a38=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14
  self._a15 = _a15
  self._a16 = _a16
  self._a17 = _a17
  self._a18 = _f18() if _a18 is _M else _a18
  self._a19 = _a19
  self._a20 = _a20
  self._a21 = _a21
  self._a22 = _a22
  self._a23 = _a23
  self._a24 = _a24
  self._a25 = _a25
  self._a26 = _a26
  self._a27 = _a27
  self._a28 = _a28
  self._a29 = _a29
  self._a30 = _a30
  self._a31 = _a31
  self._a32 = _a32
  self._a33 = _a33
  self._a34 = _a34
  self._a35 = _a35
  self._a36 = _f36() if _a36 is _M else _a36
  self._a37 = _f37() if _a37 is _M else _a37
  self._a38 = _a38


def init_ddffddd(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6


def init_ddffdff(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _f6() if _a6 is _M else _a6


def init_ffffffffffffd(self, _a0=_M, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M):
  self._a0 = _f0() if _a0 is _M else _a0
  self._a1 = _f1() if _a1 is _M else _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _f9() if _a9 is _M else _a9
  self._a10 = _f10() if _a10 is _M else _a10
  self._a11 = _f11() if _a11 is _M else _a11
  self._a12 = _a12


def init_p(self, _a0):
  self._a0 = _a0


def init_pd(self, _a0, _a1=_M):
  self._a0 = _a0
  self._a1 = _a1


def init_pd_post(self, _a0, _a1=_M):
  self._a0 = _a0
  self._a1 = _a1
  self.__post_init__()


def init_pdd(self, _a0, _a1=_M, _a2=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2


def init_pddd(self, _a0, _a1=_M, _a2=_M, _a3=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3


def init_pdddd(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4


def init_pdddddddddddd(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12


def init_pddddddddddddd(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13


def init_pdddddddf(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _f8() if _a8 is _M else _a8


def init_pdddddfd(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _a7


def init_pdddfffffdd(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _a9
  self._a10 = _a10


def init_pfd(self, _a0, _a1=_M, _a2=_M):
  self._a0 = _a0
  self._a1 = _f1() if _a1 is _M else _a1
  self._a2 = _a2


def init_pfdddd(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _f1() if _a1 is _M else _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5


def init_pfdff(self, _a0, _a1=_M, _a2=_M, _a3=_M, _a4=_M):
  self._a0 = _a0
  self._a1 = _f1() if _a1 is _M else _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4


def init_pfff(self, _a0, _a1=_M, _a2=_M, _a3=_M):
  self._a0 = _a0
  self._a1 = _f1() if _a1 is _M else _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3


def init_pp(self, _a0, _a1):
  self._a0 = _a0
  self._a1 = _a1


def init_ppd(self, _a0, _a1, _a2=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2


def init_ppdd(self, _a0, _a1, _a2=_M, _a3=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3


def init_ppddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4


def init_ppdddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5


def init_ppddddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6


def init_ppddddddddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10


def init_ppddddddddddddddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M, _a15=_M, _a16=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14
  self._a15 = _a15
  self._a16 = _a16


def init_ppdfdd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4
  self._a5 = _a5


def init_ppdfffdfddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10


def init_ppf(self, _a0, _a1, _a2=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2


def init_ppfdddd(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6


def init_ppff(self, _a0, _a1, _a2=_M, _a3=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3


def init_ppffdfffdfffff(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _a8
  self._a9 = _f9() if _a9 is _M else _a9
  self._a10 = _f10() if _a10 is _M else _a10
  self._a11 = _f11() if _a11 is _M else _a11
  self._a12 = _f12() if _a12 is _M else _a12
  self._a13 = _f13() if _a13 is _M else _a13


def init_ppffff(self, _a0, _a1, _a2=_M, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _f2() if _a2 is _M else _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5


def init_ppp(self, _a0, _a1, _a2):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2


def init_pppd(self, _a0, _a1, _a2, _a3=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3


def init_pppdd(self, _a0, _a1, _a2, _a3=_M, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4


def init_pppddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5


def init_pppdddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6


def init_pppddddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7


def init_pppdddddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8


def init_pppddddddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9


def init_pppddddddffdddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _f9() if _a9 is _M else _a9
  self._a10 = _f10() if _a10 is _M else _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14


def init_pppddf(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _f5() if _a5 is _M else _a5


def init_pppdff(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5


def init_pppdfff(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _f6() if _a6 is _M else _a6


def init_pppf(self, _a0, _a1, _a2, _a3=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3


def init_pppfd(self, _a0, _a1, _a2, _a3=_M, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4


def init_pppfddddfdfddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _a9
  self._a10 = _f10() if _a10 is _M else _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13


def init_pppfddfffddfff(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _f11() if _a11 is _M else _a11
  self._a12 = _f12() if _a12 is _M else _a12
  self._a13 = _f13() if _a13 is _M else _a13


def init_pppffd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _a5


def init_pppffddddd(self, _a0, _a1, _a2, _a3=_M, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _f3() if _a3 is _M else _a3
  self._a4 = _f4() if _a4 is _M else _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9


def init_pppp(self, _a0, _a1, _a2, _a3):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3


def init_ppppd(self, _a0, _a1, _a2, _a3, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4


def init_ppppdd(self, _a0, _a1, _a2, _a3, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5


def init_ppppddd(self, _a0, _a1, _a2, _a3, _a4=_M, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6


def init_ppppddddd_post(self, _a0, _a1, _a2, _a3, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self.__post_init__()


def init_ppppddfd(self, _a0, _a1, _a2, _a3, _a4=_M, _a5=_M, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _a7


def init_ppppdf(self, _a0, _a1, _a2, _a3, _a4=_M, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _f5() if _a5 is _M else _a5


def init_ppppdffffddd(self, _a0, _a1, _a2, _a3, _a4=_M, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _f5() if _a5 is _M else _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11


def init_ppppf(self, _a0, _a1, _a2, _a3, _a4=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _f4() if _a4 is _M else _a4


def init_ppppp(self, _a0, _a1, _a2, _a3, _a4):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4


def init_pppppd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5


def init_pppppdd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M, _a6=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6


def init_pppppddd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7


def init_pppppddddddddddd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M, _a15=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14
  self._a15 = _a15


def init_pppppddfffddddddddddfddddddddd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M, _a15=_M, _a16=_M, _a17=_M, _a18=_M, _a19=_M, _a20=_M, _a21=_M, _a22=_M, _a23=_M, _a24=_M, _a25=_M, _a26=_M, _a27=_M, _a28=_M, _a29=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _f9() if _a9 is _M else _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14
  self._a15 = _a15
  self._a16 = _a16
  self._a17 = _a17
  self._a18 = _a18
  self._a19 = _a19
  self._a20 = _f20() if _a20 is _M else _a20
  self._a21 = _a21
  self._a22 = _a22
  self._a23 = _a23
  self._a24 = _a24
  self._a25 = _a25
  self._a26 = _a26
  self._a27 = _a27
  self._a28 = _a28
  self._a29 = _a29


def init_pppppddffffdfd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _f7() if _a7 is _M else _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _f9() if _a9 is _M else _a9
  self._a10 = _f10() if _a10 is _M else _a10
  self._a11 = _a11
  self._a12 = _f12() if _a12 is _M else _a12
  self._a13 = _a13


def init_pppppdfdfdffddd(self, _a0, _a1, _a2, _a3, _a4, _a5=_M, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _a7
  self._a8 = _f8() if _a8 is _M else _a8
  self._a9 = _a9
  self._a10 = _f10() if _a10 is _M else _a10
  self._a11 = _f11() if _a11 is _M else _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14


def init_pppppf(self, _a0, _a1, _a2, _a3, _a4, _a5=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _f5() if _a5 is _M else _a5


def init_pppppp(self, _a0, _a1, _a2, _a3, _a4, _a5):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5


def init_ppppppdd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7


def init_ppppppddddddddddddddd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6=_M, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M, _a15=_M, _a16=_M, _a17=_M, _a18=_M, _a19=_M, _a20=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14
  self._a15 = _a15
  self._a16 = _a16
  self._a17 = _a17
  self._a18 = _a18
  self._a19 = _a19
  self._a20 = _a20


def init_ppppppff(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6=_M, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _f6() if _a6 is _M else _a6
  self._a7 = _f7() if _a7 is _M else _a7


def init_pppppppd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7


def init_pppppppdd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7=_M, _a8=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8


def init_pppppppdddddddd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7=_M, _a8=_M, _a9=_M, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14


def init_ppppppppp(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8


def init_pppppppppp(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9


def init_ppppppppppdd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10=_M, _a11=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11


def init_ppppppppppdfddfdddffddddfdd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10=_M, _a11=_M, _a12=_M, _a13=_M, _a14=_M, _a15=_M, _a16=_M, _a17=_M, _a18=_M, _a19=_M, _a20=_M, _a21=_M, _a22=_M, _a23=_M, _a24=_M, _a25=_M, _a26=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _f11() if _a11 is _M else _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _f14() if _a14 is _M else _a14
  self._a15 = _a15
  self._a16 = _a16
  self._a17 = _a17
  self._a18 = _f18() if _a18 is _M else _a18
  self._a19 = _f19() if _a19 is _M else _a19
  self._a20 = _a20
  self._a21 = _a21
  self._a22 = _a22
  self._a23 = _a23
  self._a24 = _f24() if _a24 is _M else _a24
  self._a25 = _a25
  self._a26 = _a26


def init_pppppppppppp(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10, _a11):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11


def init_pppppppppppppddddd(self, _a0, _a1, _a2, _a3, _a4, _a5, _a6, _a7, _a8, _a9, _a10, _a11, _a12, _a13=_M, _a14=_M, _a15=_M, _a16=_M, _a17=_M):
  self._a0 = _a0
  self._a1 = _a1
  self._a2 = _a2
  self._a3 = _a3
  self._a4 = _a4
  self._a5 = _a5
  self._a6 = _a6
  self._a7 = _a7
  self._a8 = _a8
  self._a9 = _a9
  self._a10 = _a10
  self._a11 = _a11
  self._a12 = _a12
  self._a13 = _a13
  self._a14 = _a14
  self._a15 = _a15
  self._a16 = _a16
  self._a17 = _a17
