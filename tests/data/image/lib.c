/* A shared object whose only symbols are dynamic ones (built stripped). */
int lib_add(int a, int b) { return a + b; }
int lib_twice(int a) { return lib_add(a, a); }
