// placeholder: being written (docs/canonical-two-stage.md)
int main() { return 1; }
