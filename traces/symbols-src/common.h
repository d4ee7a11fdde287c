// Shared by the fixture modules: a body that is big enough for a few
// distinct return addresses and that the optimiser cannot fold away.
#pragma once
#define FIXTURE_BODY(seed)                              \
    do {                                                \
        volatile unsigned long long acc = (seed);       \
        for (int i = 0; i < 8; ++i) acc = acc * 31 + i; \
    } while (0)
#define EXPORT extern "C" __declspec(dllexport) __declspec(noinline)
#define METHOD __declspec(noinline)
