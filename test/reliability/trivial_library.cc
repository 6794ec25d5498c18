// What loader_lock_child loads and unloads in a loop: the smallest object
// whose dlopen() and dlclose() still take the dynamic loader's locks. No
// static state, so that nothing marks it NODELETE and every dlclose()
// really unloads it.

extern "C" int LoaderLockTrivial() { return 1; }
