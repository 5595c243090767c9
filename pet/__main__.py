from pet.cli import main

raise SystemExit(main())
