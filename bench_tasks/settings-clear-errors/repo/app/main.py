import sys

from app.settings import load_settings


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    settings = load_settings(argv[0])
    print(f"{settings.name} on port {settings.port}{' (debug)' if settings.debug else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
